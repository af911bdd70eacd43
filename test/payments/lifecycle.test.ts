import { describe, expect, test } from "bun:test";
import {
  isTerminal,
  nextStates,
  type LifecycleInput,
  type PaymentStatus,
  type RiskLevel,
  statesToAnnounce,
} from "../../src/payments/lifecycle";

const AMOUNT = 1_000_000n;
const E30 = 10n ** 30n;

const seen: LifecycleInput = { kind: "movement_seen" };
const expiry: LifecycleInput = { kind: "expiry_due" };
function confirmed(confirmedRaw: bigint, amountRaw: bigint = AMOUNT): LifecycleInput {
  return { kind: "confirmed_total", confirmedRaw, amountRaw };
}
function orphaned(receivedRaw: bigint): LifecycleInput {
  return { kind: "payments_orphaned", receivedRaw };
}
function screened(riskLevel: RiskLevel, failLevels: readonly RiskLevel[] = ["high", "severe"]): LifecycleInput {
  return { kind: "screening_done", riskLevel, failLevels };
}

const ALL: PaymentStatus[] = ["pending", "seen", "underpaid", "aml_check", "paid", "failed", "expired"];
const TERMINAL: PaymentStatus[] = ["paid", "failed", "expired"];

type Row = [string, PaymentStatus, LifecycleInput, PaymentStatus[]];

describe("nextStates follows the docs/payments.md table", () => {
  const rows: Row[] = [
    ["first incoming movement marks a pending order seen", "pending", seen, ["seen"]],
    ["full payment confirming on a seen order starts screening", "seen", confirmed(AMOUNT), ["aml_check"]],
    ["overpayment confirming on a seen order starts screening", "seen", confirmed(AMOUNT + 1n), ["aml_check"]],
    ["top-up completing an underpaid order starts screening", "underpaid", confirmed(AMOUNT), ["aml_check"]],
    ["partial payment confirming on a seen order makes it underpaid", "seen", confirmed(AMOUNT - 1n), ["underpaid"]],
    ["low risk not in fail_levels pays the order", "aml_check", screened("low"), ["paid"]],
    ["medium risk not in fail_levels pays the order", "aml_check", screened("medium"), ["paid"]],
    ["high risk in fail_levels fails the order", "aml_check", screened("high"), ["failed"]],
    ["severe risk in fail_levels fails the order", "aml_check", screened("severe"), ["failed"]],
    ["empty fail_levels pays even severe risk", "aml_check", screened("severe", []), ["paid"]],
    ["fail_levels containing low fails a low-risk order", "aml_check", screened("low", ["low"]), ["failed"]],
    ["expiry of a pending order expires it", "pending", expiry, ["expired"]],
    ["expiry of an underpaid order expires it", "underpaid", expiry, ["expired"]],
  ];
  test.each(rows)("%s", (_name, current, input, expected) => {
    expect(nextStates(current, input)).toEqual(expected);
  });
});

describe("nextStates announces seen before any later state", () => {
  const rows: Row[] = [
    ["full payment confirming on a pending order goes through seen", "pending", confirmed(AMOUNT), ["seen", "aml_check"]],
    ["partial payment confirming on a pending order goes through seen", "pending", confirmed(1n), ["seen", "underpaid"]],
  ];
  test.each(rows)("%s", (_name, current, input, expected) => {
    expect(nextStates(current, input)).toEqual(expected);
  });
});

describe("nextStates does nothing", () => {
  const rows: Row[] = [
    ["for another movement on a seen order", "seen", seen, []],
    ["for another movement on an underpaid order", "underpaid", seen, []],
    ["for an underpaid order still short (no repeated webhook)", "underpaid", confirmed(AMOUNT - 1n), []],
    ["when seen decides not to expire: a payment is in flight", "seen", expiry, []],
    ["when screening finishes outside aml_check (pending)", "pending", screened("severe"), []],
    ["when screening finishes outside aml_check (seen)", "seen", screened("low"), []],
    ["when screening finishes outside aml_check (underpaid)", "underpaid", screened("low"), []],
    ["for movements during aml_check", "aml_check", seen, []],
    ["for confirmations during aml_check", "aml_check", confirmed(AMOUNT * 2n), []],
    ["for expiry during aml_check", "aml_check", expiry, []],
  ];
  test.each(rows)("%s", (_name, current, input, expected) => {
    expect(nextStates(current, input)).toEqual(expected);
  });

  test.each(ALL)("for a zero confirmed total on %s", (current) => {
    expect(nextStates(current, confirmed(0n))).toEqual([]);
  });

  const inputs: [string, LifecycleInput][] = [
    ["a movement", seen],
    ["a full confirmed total", confirmed(AMOUNT)],
    ["a partial confirmed total", confirmed(1n)],
    ["low-risk screening", screened("low")],
    ["severe-risk screening", screened("severe")],
    ["expiry", expiry],
    ["orphaned payments", orphaned(0n)],
  ];
  const terminalInputs: [PaymentStatus, string, LifecycleInput][] = TERMINAL.flatMap((s) =>
    inputs.map(([name, input]): [PaymentStatus, string, LifecycleInput] => [s, name, input]),
  );
  test.each(terminalInputs)("in terminal %s for %s", (current, _name, input) => {
    expect(nextStates(current, input)).toEqual([]);
  });
});

describe("nextStates after a reorg orphaned payments", () => {
  const rows: Row[] = [
    ["a seen order with nothing left waits again", "seen", orphaned(0n), ["pending"]],
    ["an underpaid order with nothing left waits again", "underpaid", orphaned(0n), ["pending"]],
    ["a seen order with a payment left stays seen", "seen", orphaned(1n), []],
    ["an underpaid order with a payment left stays underpaid", "underpaid", orphaned(1n), []],
    ["a pending order stays pending", "pending", orphaned(0n), []],
    ["an order in aml_check finishes its screening", "aml_check", orphaned(0n), []],
    ["a paid order never moves back", "paid", orphaned(0n), []],
    ["a failed order never moves back", "failed", orphaned(0n), []],
    ["an expired order never moves back", "expired", orphaned(0n), []],
  ];
  test.each(rows)("%s", (_name, current, input, expected) => {
    expect(nextStates(current, input)).toEqual(expected);
  });
});

describe("statesToAnnounce announces each state once", () => {
  const rows: [string, PaymentStatus[], PaymentStatus[], PaymentStatus[]][] = [
    ["a first payment announces seen", ["seen"], [], ["seen"]],
    ["a return to pending is silent", ["pending"], ["seen"], []],
    ["seen again after a return to pending is silent", ["seen"], ["seen"], []],
    ["seen again and then paid in full announces only aml_check", ["seen", "aml_check"], ["seen"], ["aml_check"]],
    ["seen and underpaid again after a return to pending are silent", ["seen", "underpaid"], ["seen", "underpaid"], []],
    ["a first underpaid after seen is announced", ["seen", "underpaid"], ["seen"], ["underpaid"]],
    ["expiry after a return to pending is announced", ["expired"], ["seen"], ["expired"]],
  ];
  test.each(rows)("%s", (_name, entered, before, expected) => {
    expect(statesToAnnounce(entered, new Set(before))).toEqual(expected);
  });
});

describe("nextStates compares huge amounts exactly", () => {
  const rows: Row[] = [
    ["10^30 confirmed against 10^30 ordered is paid in full", "seen", confirmed(E30, E30), ["aml_check"]],
    ["one unit short of 10^30 is underpaid", "seen", confirmed(E30 - 1n, E30), ["underpaid"]],
    ["one unit short of 10^30 from pending goes through seen", "pending", confirmed(E30 - 1n, E30), ["seen", "underpaid"]],
  ];
  test.each(rows)("%s", (_name, current, input, expected) => {
    expect(nextStates(current, input)).toEqual(expected);
  });
});

describe("isTerminal", () => {
  const cases: [PaymentStatus, boolean][] = ALL.map((s) => [s, TERMINAL.includes(s)]);
  test.each(cases)("%s is terminal: %p", (status, expected) => {
    expect(isTerminal(status)).toBe(expected);
  });

  test("exactly paid, failed and expired are terminal", () => {
    expect(ALL.filter(isTerminal)).toEqual(["paid", "failed", "expired"]);
  });
});
