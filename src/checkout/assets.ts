// The checkout page's stylesheet (inline, allowed by its hash) and its one script, served as a
// file of its own at SCRIPT_PATH: the page carries no inline script at all, so its policy can
// forbid every inline script outright. Both are string constants of the binary; nothing loads
// from anywhere else.

/** Mobile first: one column at 360 px; from 48rem on, the QR code beside the details. Focus always visible. */
export const CSS = `*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1f24;background:#f3f5f7}
main{max-width:56rem;margin:0 auto;padding:1rem}
header{margin:.25rem 0 1rem}header p{margin:0;color:#4a5561;font-size:.95rem}
h1{font-size:1.5rem;margin:.1rem 0;overflow-wrap:anywhere}h2{font-size:1.15rem;margin:0 0 .4rem}
.card{background:#fff;border:1px solid #d5dbe1;border-radius:8px;padding:1rem;margin:0 0 1rem}
.status{border-left:6px solid #0b5cad}.status.seen{border-left-color:#b7791f}.status.underpaid{border-left-color:#c2410c}
.status.paid{border-left-color:#1d7a34}.status.failed{border-left-color:#a4161a}.status.expired{border-left-color:#69737d}
.status p{margin:.25rem 0}.status p.deadline{margin-top:.6rem;padding-top:.5rem;border-top:1px solid #e5e8ec}
progress{width:100%;height:.75rem;margin-top:.4rem}
.pay{display:grid;gap:1rem}
figure{margin:0;text-align:center}
svg.qr{display:block;width:100%;max-width:18rem;height:auto;margin:0 auto;border:1px solid #d5dbe1}
figcaption{font-size:.9rem;color:#4a5561;margin-top:.3rem}
dl{margin:0}dl div{margin:0 0 .75rem}dt{font-size:.85rem;color:#4a5561;font-weight:600}dd{margin:0}
.big{font-size:1.35rem;font-weight:700}
code{font:1rem/1.4 ui-monospace,monospace;overflow-wrap:anywhere;word-break:break-all;background:#f6f7f9;padding:.1rem .25rem;border-radius:3px}
button,a.button{display:inline-block;font:inherit;padding:.45rem .9rem;border:1px solid #0b5cad;border-radius:6px;background:#fff;color:#0b5cad;cursor:pointer;text-decoration:none;margin-top:.35rem}
a.button.primary{background:#0b5cad;color:#fff}
a{color:#0b5cad}
:focus-visible{outline:3px solid #f0a000;outline-offset:2px}
ul.warnings{margin:0;padding-left:1.1rem}ul.warnings li{margin:.3rem 0}
.muted{color:#4a5561;font-size:.9rem}
footer{max-width:56rem;margin:0 auto;padding:0 1rem 1.5rem;color:#4a5561;font-size:.85rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (min-width:48rem){.pay{grid-template-columns:18rem 1fr;align-items:start}h1{font-size:1.8rem}}
`;

/**
 * Progressive enhancement only: without it the page shows everything and a link refreshes it.
 * With it: copy buttons appear and copy (or select) their text; the countdown ticks (corrected
 * for the difference between this device's clock and the server's); the status follows Server-Sent
 * Events from data-events, or polls data-json every 3 s when the stream is refused or lost; on a
 * change it fetches the page again and swaps the parts that changed (so focus stays where it is),
 * says the new status through the live region, and closes the stream once the order is final.
 */
export const JS = `(()=>{"use strict";
const main=document.getElementById("checkout");if(!main)return;
const live=document.getElementById("live");const parts=["status","pay","done"];
const enhance=()=>{for(const b of document.querySelectorAll("[data-copy]"))b.hidden=false;const r=document.getElementById("refresh");if(r)r.hidden=true};
document.addEventListener("click",e=>{const b=e.target.closest("[data-copy]");if(!b)return;const t=document.getElementById(b.dataset.copy);if(!t)return;
const label=b.dataset.label||b.textContent;b.dataset.label=label;
const select=()=>{const r=document.createRange();r.selectNodeContents(t);getSelection().removeAllRanges();getSelection().addRange(r);b.textContent="Selected: press Ctrl+C"};
(navigator.clipboard?navigator.clipboard.writeText(t.textContent.trim()):Promise.reject()).then(()=>{b.textContent="Copied";live.textContent=label.replace(/^Copy /,"")+" copied"},select);
setTimeout(()=>{b.textContent=label},3000)});
const skew=Number(main.dataset.now)-Date.now();
const pad=n=>String(n).padStart(2,"0");
const tick=()=>{const c=document.getElementById("countdown");if(!c)return;const left=Math.max(0,Math.ceil((Number(main.dataset.expires)-(Date.now()+skew))/1000));
const h=Math.floor(left/3600),m=Math.floor(left%3600/60),s=left%60;c.textContent=left===0?"Time is up":(h>0?h+":"+pad(m)+":"+pad(s):m+":"+pad(s))+" left"};
let state=main.dataset.state,source=null,poller=null,busy=false,again=false;
const refresh=async()=>{if(busy){again=true;return}busy=true;try{do{again=false;
const r=await fetch(location.pathname,{cache:"no-store",headers:{accept:"text/html"}});if(!r.ok)break;
const doc=new DOMParser().parseFromString(await r.text(),"text/html");const next=doc.getElementById("checkout");if(!next)break;
for(const id of parts){const a=document.getElementById(id),b=doc.getElementById(id);if(a&&b&&a.innerHTML!==b.innerHTML)a.innerHTML=b.innerHTML}
main.dataset.expires=next.dataset.expires;document.title=doc.title;enhance();tick();
const h=document.querySelector("#status h2");if(h)live.textContent=h.textContent}while(again)}catch(e){}finally{busy=false}};
const stop=()=>{if(source){source.close();source=null}if(poller){clearInterval(poller);poller=null}};
const seen=text=>{if(text===state)return;state=text;let s;try{s=JSON.parse(text)}catch(e){return}refresh();if(["paid","failed","expired"].includes(s.status))stop()};
const poll=()=>{if(poller)return;poller=setInterval(async()=>{try{const r=await fetch(main.dataset.json,{cache:"no-store"});if(r.ok)seen(await r.text())}catch(e){}},3000)};
enhance();tick();setInterval(tick,1000);
if(main.dataset.final!=="1"){if(window.EventSource){source=new EventSource(main.dataset.events);source.addEventListener("status",e=>seen(e.data));
source.onerror=()=>{if(source&&source.readyState===2){source=null;poll()}}}else poll()}
})();
`;

const digest = (algorithm: Bun.SupportedCryptoAlgorithms, text: string) => new Bun.CryptoHasher(algorithm).update(text).digest("base64");

/** Where the script is served; its query names the content, so a new binary's script is never taken from a cache. */
export const SCRIPT_PATH = "/pay/checkout.js";
export const SCRIPT_SRC = `${SCRIPT_PATH}?v=${digest("sha256", JS).replace(/[^A-Za-z0-9]/g, "").slice(0, 12)}`;

/**
 * Nothing runs but the script file from this origin, nothing styles but this stylesheet, nothing
 * loads from anywhere else, no page may frame this one, and it submits no form.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'sha256-${digest("sha256", CSS)}'`,
  "img-src data:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** Headers of every checkout answer: nothing cached, framed, referred or sniffed. */
export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
};

/** The script's own headers: cached for a day (its address changes with its content), never sniffed. */
export const SCRIPT_HEADERS: Record<string, string> = {
  "content-type": "text/javascript; charset=utf-8",
  "cache-control": "public, max-age=86400, immutable",
  "x-content-type-options": "nosniff",
};
