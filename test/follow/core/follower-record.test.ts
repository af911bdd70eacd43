import { describe, expect, test } from "bun:test";
import { followerGauges, newFollowerRecord, saveDue, snapshotOf } from "../../../src/follow/core/follower-record.ts";

// What a follower shows of itself: its gauges, when its row is written, and the row.

describe("the follower's gauges", () => {
  test("show each height once known, and the lag once both are", () => {
    const r = newFollowerRecord();
    expect(followerGauges(r)).toEqual([]);
    r.nodeHeight = 120;
    expect(followerGauges(r)).toEqual([["chainwatch_follower_node_height", 120]]);
    r.tipHeight = 100;
    expect(followerGauges(r)).toEqual([
      ["chainwatch_follower_node_height", 120],
      ["chainwatch_follower_stored_tip", 100],
      ["chainwatch_follower_lag", 20],
    ]);
  });

  test("never show a negative lag (a node behind the stored tip after a reorg to a shorter chain)", () => {
    expect(followerGauges({ ...newFollowerRecord(), nodeHeight: 90, tipHeight: 100 })).toContainEqual(["chainwatch_follower_lag", 0]);
  });
});

describe("the follower's row", () => {
  test("is written when forced, else a second after the last write", () => {
    expect([saveDue(5_000, 5_999, false), saveDue(5_000, 6_000, false), saveDue(5_000, 5_001, true)]).toEqual([false, true, true]);
  });

  test("carries the record's state, heights and error beside what the follower names", () => {
    const r = { ...newFollowerRecord(), state: "error" as const, nodeHeight: 7, tipHeight: 5, lastError: "the node went away" };
    expect(snapshotOf(r, { network: "eth", upstream: "http://127.0.0.1:8545", blocksPerSecond: 1.5, leader: null })).toEqual({
      network: "eth",
      upstream: "http://127.0.0.1:8545",
      nodeHeight: 7,
      state: "error",
      lastError: "the node went away",
      blocksPerSecond: 1.5,
      leader: null,
    });
  });
});
