// The cabinet's only stylesheet and script, inlined in every page: no asset routes, no CDN, and
// the compiled binary carries them as string constants. The Content-Security-Policy allows exactly
// these two by hash, so no other script or style (injected or not) can run.

/** Mobile first: one column at 360 px, tables scroll inside their own box, focus always visible. */
export const CSS = `*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,sans-serif;color:#1b1f24;background:#f6f7f9;overflow-wrap:break-word}
a{color:#0b5cad}
header{background:#14324f;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
header strong{font-size:1.05rem}header span{opacity:.85}
header form{margin-left:auto}
nav{background:#fff;border-bottom:1px solid #d8dde3}
nav ul{list-style:none;margin:0;padding:0 .5rem;display:flex;flex-wrap:wrap;gap:0 .25rem}
nav a{display:block;padding:.6rem .6rem;text-decoration:none;white-space:nowrap}
nav a[aria-current=page]{font-weight:600;border-bottom:3px solid #0b5cad}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
section,.card{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:1rem;margin:0 0 1rem}
section>:first-child{margin-top:0}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem}
.stats div{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:.75rem}
.stats dt{font-size:.85rem;color:#555}.stats dd{margin:0;font-size:1.3rem;font-weight:600}
.scroll{overflow-x:auto;position:relative}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e5e8ec;vertical-align:top}
code{font-family:ui-monospace,monospace;font-size:.85rem;word-break:break-all}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}
label.inline{display:inline-flex;gap:.4rem;align-items:center;font-weight:400;margin:.2rem 1rem .2rem 0}
input,select,textarea,button{font:inherit}
input[type=text],input[type=url],input[type=number],select,textarea{width:100%;max-width:32rem;padding:.45rem;border:1px solid #9aa4ae;border-radius:4px;background:#fff}
button{padding:.45rem .9rem;border:1px solid #0b5cad;border-radius:4px;background:#0b5cad;color:#fff;cursor:pointer;margin-top:.6rem}
button.secondary{background:#fff;color:#0b5cad}button.danger{background:#fff;color:#a4161a;border-color:#a4161a}
td button{margin:0}
:focus-visible{outline:3px solid #f0a000;outline-offset:2px}
.alert{padding:.75rem 1rem;border-radius:6px;margin:0 0 1rem;border:1px solid}
.alert.err{background:#fdecea;border-color:#e0a0a0}.alert.ok{background:#e8f5e9;border-color:#a5d6a7}
output{display:block;margin-top:.5rem;font-weight:600}output.err{color:#a4161a}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.secret code{background:#fff8d6;padding:.3rem .5rem;word-break:break-all}
.muted{color:#5a6470;font-size:.9rem}
fieldset{border:1px solid #d8dde3;border-radius:4px;margin:.6rem 0;padding:.5rem .75rem}legend{font-weight:600}
ul.endpoints{list-style:none;padding:0;margin:0}ul.endpoints .stats dd{font-size:1rem;word-break:break-word}
ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid #0b5cad}
ol.timeline li{position:relative;padding:.2rem 0 .8rem 1rem}
ol.timeline li::before{content:"";position:absolute;left:-.5rem;top:.55rem;width:.7rem;height:.7rem;border-radius:50%;background:#0b5cad}
svg.chart{width:100%;height:auto;max-height:14rem}
.pager{display:flex;gap:1rem;margin-top:.75rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
a.skip{position:absolute;left:.5rem;top:.5rem;z-index:1;padding:.4rem .8rem;background:#fff;border-radius:4px}a.skip:not(:focus){width:1px;height:1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.badge{display:inline-block;padding:0 .5rem;border:1px solid #9aa4ae;border-radius:999px;background:#eef1f4;font-size:.8rem;font-weight:600;white-space:nowrap}
.badge.succeeded{background:#e8f5e9;border-color:#7cb982;color:#1d5e25}.badge.failed{background:#fdecea;border-color:#e0a0a0;color:#8a1c1c}
.badge.pending{background:#e7f0fb;border-color:#8fb4e0;color:#0b4a8a}.badge.paused{background:#fff4d6;border-color:#e3c267;color:#6b4e00}
.badge.retraction{background:#f3e8fd;border-color:#b892e0;color:#5b2a86}
form.filters{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}form.filters>div{flex:1 1 14rem;min-width:0}form.filters>div.short{flex-basis:8rem}form.filters>div.actions{flex:0 0 auto}
pre{white-space:pre-wrap;word-break:break-all;margin:.3rem 0;padding:.5rem;background:#f6f7f9;border:1px solid #e5e8ec;border-radius:4px;font:.82rem/1.4 ui-monospace,monospace;max-height:30rem;overflow:auto}
summary{cursor:pointer;color:#0b5cad}
dl.headers dt{font-weight:600;font-size:.9rem;margin-top:.4rem}dl.headers dd{margin:0}
@media (max-width:40rem){table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack,table.stack tbody,table.stack td{display:block}
table.stack tr{display:flex;flex-wrap:wrap;gap:.1rem .8rem;padding:.5rem 0;border-bottom:1px solid #e5e8ec}
table.stack td{border:0;padding:0;min-width:0}table.stack td.wide{flex-basis:100%}table.stack td.empty{display:none}
table.stack td[data-label]::before{content:attr(data-label) " ";color:#5a6470;font-size:.85rem}
table.deliveries tr{gap:0 .6rem;padding:.35rem 0;align-items:baseline}
table.deliveries tr::before{content:"";flex-basis:100%;order:1}
table.deliveries td:nth-child(n+4){order:2;font-size:.8rem;color:#5a6470}
table.deliveries td:nth-child(-n+3)::before,table.deliveries td[data-label=Created]::before{content:none}
table.deliveries td[data-label="Last code"]::before{content:"Code "}}
`;

/**
 * Progressive enhancement only; every form works without it. Copy buttons copy (or select) their
 * target; forms marked data-inline post in the background and show the answer in their <output>
 * (the webhook Test), and when the answer names a page to follow (`link`: the delivery a Test
 * queued) they link it and poll it (Accept: application/json, every second, for at most two
 * minutes) until its first attempt's result is there, which they show; data-confirm asks first; a page rendered by a POST swaps its URL for the GET
 * one (body[data-url]) so a reload neither re-posts nor shows a once-only secret again. Nothing
 * here submits a form by itself: the sign-in page waits for its button (docs/cabinet.md).
 */
export const JS = `document.addEventListener("click",e=>{const b=e.target.closest("[data-copy]");if(!b)return;const t=document.getElementById(b.dataset.copy);const sel=()=>{const r=document.createRange();r.selectNodeContents(t);getSelection().removeAllRanges();getSelection().addRange(r)};(navigator.clipboard?navigator.clipboard.writeText(t.textContent):Promise.reject()).then(()=>{b.textContent="Copied"},sel)});
document.addEventListener("submit",async e=>{const f=e.target;if(f.dataset.confirm&&!confirm(f.dataset.confirm)){e.preventDefault();return}if(!f.hasAttribute("data-inline"))return;e.preventDefault();const o=f.querySelector("output");o.className="";o.textContent="Sending…";try{const r=await fetch(f.action,{method:"POST",body:new URLSearchParams(new FormData(f)),headers:{accept:"application/json"}});const j=await r.json();o.textContent=j.message||j.error;o.className=r.ok?"ok":"err";if(r.ok&&j.link)follow(o,j.link)}catch(x){o.textContent=String(x);o.className="err"}});
function follow(o,href){const a=document.createElement("a");a.href=href;a.textContent="Follow it";const s=document.createElement("span");s.className="result";o.append(" ",a," ",s);let n=0;const poll=async()=>{try{const r=await fetch(href,{headers:{accept:"application/json"}});const d=await r.json();if(d.result){s.textContent=d.result;return}}catch(x){}if(++n<120)setTimeout(poll,1000)};poll()}
if(document.body.dataset.url)history.replaceState(null,"",document.body.dataset.url);`;

/**
 * The cabinet's icon (an eye: chainwatch watches addresses), served at /cabinet/favicon.svg from
 * this constant, so a browser tab shows it and never asks a CDN or gets a 404.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#14324f"/><path d="M4 16s4.5-7 12-7 12 7 12 7-4.5 7-12 7S4 16 4 16z" fill="none" stroke="#fff" stroke-width="2.5"/><circle cx="16" cy="16" r="3.5" fill="#f0a000"/></svg>`;

/** The icon's headers: it changes only with the binary, so a day of caching saves a request per page. */
export const FAVICON_HEADERS: Record<string, string> = {
  "content-type": "image/svg+xml",
  "cache-control": "public, max-age=86400",
  "x-content-type-options": "nosniff",
};

const sha256 = (text: string) => `'sha256-${new Bun.CryptoHasher("sha256").update(text).digest("base64")}'`;

/** Nothing may load or run but this page's own stylesheet and script; forms post only here. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${sha256(CSS)}`,
  `script-src ${sha256(JS)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");
