import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { manualClock } from "../support/clock.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// Private targets are refused here (unlike the harness default) so the settings URL guard is exercised.
const clock = manualClock();
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ clock, config: { delivery: { allow_private_targets: false } } });
});
afterAll(async () => {
  await td.stop();
});

let addressCounter = 0;
/** A fresh lower-case EVM address, so orders in different tests never share one. */
function freshAddress(): string {
  return `0x${(++addressCounter).toString(16).padStart(40, "a")}`;
}

async function call(c: TestClient, method: string, path: string, body?: unknown) {
  const res = await c.request(method, path, body);
  return { status: res.status, body: (await res.json()) as any };
}

const order = (over: Record<string, unknown> = {}) => ({
  order_id: `ord-${++addressCounter}`,
  network: "eth",
  address: freshAddress(),
  amount: "1.5",
  ...over,
});

describe("POST /v1/payments creates an order", () => {
  test("answers 201 with the full order view for a native-coin order", async () => {
    const c = await td.client();
    const address = freshAddress();
    const res = await call(c, "POST", "/v1/payments", { order_id: "A-1", network: "eth", address, amount: "1.5" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      payment_id: expect.stringMatching(/^pay_[0-9a-f]{24}$/),
      order_id: "A-1",
      network: "eth",
      address,
      asset: null,
      amount: "1.5",
      amount_raw: "1500000000000000000",
      amount_received: "0",
      amount_received_raw: "0",
      status: "pending",
      tx_hash: null,
      expires_at: rfc3339(clock.now() + 3600 * 1000),
      created_at: rfc3339(clock.now()),
      aml: null,
      derivation_index: null,
      late_payments: [],
      checkout_url: expect.stringMatching(new RegExp(`^${td.url}/pay/[A-Za-z0-9_-]{32}$`)),
      description: null,
      redirect_url: null,
    });
  });

  test("lets a free-plan account with no address slots create orders", async () => {
    const c = await td.client({ slots: 0 });
    expect((await call(c, "POST", "/v1/payments", order())).status).toBe(201);
    const account = await call(c, "GET", "/v1/account");
    expect(account.body.address_slots).toEqual({ used: 0, limit: 0 });
  });

  test("stores a checksummed EVM address lower-case", async () => {
    const c = await td.client();
    const res = await call(c, "POST", "/v1/payments", order({ address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" }));
    expect(res.status).toBe(201);
    expect(res.body.address).toBe("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed");
  });

  test("takes a token order with the asset lower-cased and its own decimals", async () => {
    const c = await td.client();
    const res = await call(c, "POST", "/v1/payments", order({ asset: "0xDAC17F958D2EE523A2206206994597C13D831EC7", decimals: 6, amount: "12.25" }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ asset: "0xdac17f958d2ee523a2206206994597c13d831ec7", amount: "12.25", amount_raw: "12250000" });
  });

  test("accepts the network's own decimals given explicitly for the native coin", async () => {
    const c = await td.client();
    expect((await call(c, "POST", "/v1/payments", order({ decimals: 18 }))).status).toBe(201);
  });

  test("sets expires_at from expires_in_seconds", async () => {
    const c = await td.client();
    const res = await call(c, "POST", "/v1/payments", order({ expires_in_seconds: 60 }));
    expect(res.body.expires_at).toBe(rfc3339(clock.now() + 60_000));
  });

  test("refuses a repeated order_id of the same account with 409 Order already exists.", async () => {
    const c = await td.client();
    expect((await call(c, "POST", "/v1/payments", order({ order_id: "dup" }))).status).toBe(201);
    expect(await call(c, "POST", "/v1/payments", order({ order_id: "dup" }))).toEqual({
      status: 409,
      body: { error: "Order already exists." },
    });
  });

  test("lets two accounts use the same order_id", async () => {
    const [a, b] = [await td.client(), await td.client()];
    expect((await call(a, "POST", "/v1/payments", order({ order_id: "shared" }))).status).toBe(201);
    expect((await call(b, "POST", "/v1/payments", order({ order_id: "shared" }))).status).toBe(201);
  });
});

describe("one active order per network, address and asset", () => {
  test("refuses a second active order on the same address with 409, whichever account asks", async () => {
    const [a, b] = [await td.client(), await td.client()];
    const address = freshAddress();
    expect((await call(a, "POST", "/v1/payments", order({ address }))).status).toBe(201);
    const busy = { status: 409, body: { error: "Address already has an active order." } };
    expect(await call(a, "POST", "/v1/payments", order({ address }))).toEqual(busy);
    expect(await call(b, "POST", "/v1/payments", order({ address: address.toUpperCase().replace("0X", "0x") }))).toEqual(busy);
  });

  test("allows a token order and a native order on the same address", async () => {
    const c = await td.client();
    const address = freshAddress();
    expect((await call(c, "POST", "/v1/payments", order({ address }))).status).toBe(201);
    const token = order({ address, asset: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 6 });
    expect((await call(c, "POST", "/v1/payments", token)).status).toBe(201);
  });

  test("allows the same address on another network", async () => {
    const c = await td.client();
    const address = freshAddress();
    expect((await call(c, "POST", "/v1/payments", order({ address }))).status).toBe(201);
    expect((await call(c, "POST", "/v1/payments", order({ address, network: "bsc" }))).status).toBe(201);
  });
});

describe("POST /v1/payments names the bad field with 400", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["too many decimals", { amount: "1.0000001", asset: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 6 }, "amount has more than 6 fractional digits"],
    ["a negative amount", { amount: "-1" }, 'amount must be a positive decimal string without a sign (got "-1")'],
    ["a zero amount", { amount: "0.000" }, "amount must be greater than zero"],
    ["a garbage amount", { amount: "12abc" }, 'amount must be a positive decimal string such as "12.5" (got "12abc")'],
    ["an exponent amount", { amount: "1e18" }, 'amount must be a positive decimal string without an exponent (got "1e18")'],
    ["an empty amount", { amount: "" }, "amount must not be empty"],
    ["a numeric amount", { amount: 1.5 }, 'amount must be a positive decimal string such as "12.5", not a JSON number (got 1.5): a number cannot carry every digit of an amount'],
    ["an amount of 1e30 as a JSON number", { amount: 1e30 }, 'amount must be a positive decimal string such as "12.5", not a JSON number (got 1e+30): a number cannot carry every digit of an amount'],
    ["a comma as the decimal point", { amount: "12,5" }, 'amount must be a positive decimal string with a dot as the decimal point and no separators (got "12,5")'],
    ["an unknown network", { network: "doge" }, "Unknown network: doge"],
    ["an invalid address", { address: "0x1234" }, "Invalid address for network eth"],
    ["a bad EIP-55 checksum", { address: "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" }, "Invalid address for network eth: its mixed-case letters do not match its EIP-55 checksum; check it for a mistyped character"],
    [
      "a testnet address on btc",
      { network: "btc", address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" },
      "Invalid address for network btc: expected P2PKH (version 0), P2SH (version 5), or bech32/bech32m with prefix bc1",
    ],
    ["an invalid token contract", { asset: "usdt", decimals: 6 }, "Invalid asset for network eth"],
    ["a non-string asset", { asset: 7, decimals: 6 }, "asset must be a string or null"],
    ["a token without decimals", { asset: "0xdac17f958d2ee523a2206206994597c13d831ec7" }, "decimals is required when asset is given"],
    ["native decimals that differ from the network", { decimals: 6 }, "decimals must be 18 (or absent) for the native asset of network eth"],
    ["decimals above 36", { asset: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 37 }, "decimals must be at most 36"],
    ["fractional decimals", { asset: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 1.5 }, "decimals must be an integer"],
    ["an empty order_id", { order_id: "" }, "order_id must not be empty"],
    ["an order_id over 128 characters", { order_id: "x".repeat(129) }, "order_id must be at most 128 characters"],
    ["expires_in_seconds under a minute", { expires_in_seconds: 59 }, "expires_in_seconds must be at least 60"],
    ["expires_in_seconds over 30 days", { expires_in_seconds: 2_592_001 }, "expires_in_seconds must be at most 2592000"],
    ["an unknown field", { expires_in: 60 }, "expires_in is not a known field"],
  ];
  test.each(cases)("for %s", async (_name, over, error) => {
    const c = await td.client();
    expect(await call(c, "POST", "/v1/payments", order(over))).toEqual({ status: 400, body: { error } });
  });

  test("for a missing order_id", async () => {
    const c = await td.client();
    const { order_id: _omitted, ...body } = order();
    expect(await call(c, "POST", "/v1/payments", body)).toEqual({ status: 400, body: { error: "order_id is required" } });
  });

  test("for a body that is not JSON", async () => {
    const c = await td.client();
    expect(await call(c, "POST", "/v1/payments", "{nope")).toEqual({ status: 400, body: { error: "Invalid JSON body." } });
  });

  test("and requires a signature first", async () => {
    const res = await fetch(`${td.url}/v1/payments`, { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "Missing X-Api-Key" });
  });
});

describe("reading orders", () => {
  test("GET /v1/payments/{id} answers the order", async () => {
    const c = await td.client();
    const created = await call(c, "POST", "/v1/payments", order());
    expect(await call(c, "GET", `/v1/payments/${created.body.payment_id}`)).toEqual({ status: 200, body: created.body });
  });

  test("another account's order is 404 Payment not found.", async () => {
    const [a, b] = [await td.client(), await td.client()];
    const created = await call(a, "POST", "/v1/payments", order());
    const notFound = { status: 404, body: { error: "Payment not found." } };
    expect(await call(b, "GET", `/v1/payments/${created.body.payment_id}`)).toEqual(notFound);
    expect(await call(b, "GET", "/v1/payments/pay_000000000000000000000000")).toEqual(notFound);
  });

  test("GET /v1/payments lists the account's orders newest first", async () => {
    const c = await td.client();
    const first = await call(c, "POST", "/v1/payments", order());
    clock.advance(1000);
    const second = await call(c, "POST", "/v1/payments", order());
    const res = await call(c, "GET", "/v1/payments");
    expect(res).toEqual({ status: 200, body: { payments: [second.body, first.body] } });
  });

  test("GET /v1/payments filters by order_id and status and honours limit", async () => {
    const c = await td.client();
    const a = await call(c, "POST", "/v1/payments", order({ order_id: "inv-7" }));
    clock.advance(1000);
    const b = await call(c, "POST", "/v1/payments", order());
    expect((await call(c, "GET", "/v1/payments?order_id=inv-7")).body).toEqual({ payments: [a.body] });
    expect((await call(c, "GET", "/v1/payments?status=pending")).body.payments).toHaveLength(2);
    expect((await call(c, "GET", "/v1/payments?status=paid")).body).toEqual({ payments: [] });
    expect((await call(c, "GET", "/v1/payments?limit=1")).body).toEqual({ payments: [b.body] });
  });

  test("GET /v1/payments refuses an unknown status and a bad limit with 400", async () => {
    const c = await td.client();
    expect(await call(c, "GET", "/v1/payments?status=done")).toEqual({
      status: 400,
      body: { error: "status must be one of pending, seen, underpaid, aml_check, paid, failed, expired" },
    });
    for (const limit of ["0", "1001", "ten", "-1"])
      expect(await call(c, "GET", `/v1/payments?limit=${limit}`)).toEqual({
        status: 400,
        body: { error: "limit must be an integer from 1 to 1000" },
      });
  });
});

describe("GET and PUT /v1/payments/settings", () => {
  test("starts with no payment webhook URL", async () => {
    const c = await td.client();
    expect(await call(c, "GET", "/v1/payments/settings")).toEqual({ status: 200, body: { webhook_url: null } });
  });

  test("stores a public URL and clears it with null", async () => {
    const c = await td.client();
    const url = "https://93.184.216.34/payments-hook";
    expect(await call(c, "PUT", "/v1/payments/settings", { webhook_url: url })).toEqual({ status: 200, body: { webhook_url: url } });
    expect(await call(c, "GET", "/v1/payments/settings")).toEqual({ status: 200, body: { webhook_url: url } });
    expect(await call(c, "PUT", "/v1/payments/settings", { webhook_url: null })).toEqual({ status: 200, body: { webhook_url: null } });
    expect(await call(c, "GET", "/v1/payments/settings")).toEqual({ status: 200, body: { webhook_url: null } });
  });

  const cases: [string, unknown, string][] = [
    ["a relative URL", { webhook_url: "/hook" }, "webhook_url must be an absolute http(s) URL"],
    ["an ftp URL", { webhook_url: "ftp://93.184.216.34/x" }, "webhook_url must be an absolute http(s) URL"],
    ["a loopback URL", { webhook_url: "http://127.0.0.1:9/hook" }, "webhook_url resolves to a private address"],
    ["a metadata URL", { webhook_url: "http://169.254.169.254/latest" }, "webhook_url resolves to a private address"],
    ["credentials in the URL", { webhook_url: "https://u:p@93.184.216.34/x" }, "webhook_url must not contain credentials"],
    ["a number", { webhook_url: 5 }, "webhook_url must be a string or null"],
    ["no webhook_url", {}, "webhook_url is required"],
    ["an unknown field", { webhook_url: null, url: "x" }, "url is not a known field"],
  ];
  test.each(cases)("refuses %s with 400", async (_name, body, error) => {
    const c = await td.client();
    expect(await call(c, "PUT", "/v1/payments/settings", body)).toEqual({ status: 400, body: { error } });
    expect((await call(c, "GET", "/v1/payments/settings")).body).toEqual({ webhook_url: null });
  });
});
