import { describe, expect, test } from "bun:test";
import { findCommonAncestor, unlinkedChain } from "../../../src/follow/core/walk-back.ts";

// Where the node's chain and the stored one part, over hashes of the test's own.

/** The store holds heights from..10 of chain "a"; the node's chain is "b" from `forkAt` up. */
function lookups(forkAt: number, from = 0) {
  const asked: number[] = [];
  return {
    asked,
    storedHashAt: async (h: number) => (h >= from && h <= 10 ? `a${h}` : null),
    nodeHashAt: async (h: number) => {
      asked.push(h);
      return h >= forkAt ? `b${h}` : `a${h}`;
    },
  };
}

describe("the common ancestor", () => {
  test("is the tip when the node agrees with it", async () => {
    expect(await findCommonAncestor(lookups(11), 10, 5)).toBe(10);
  });

  test("is the newest height below the fork, asked from the tip down", async () => {
    const hashes = lookups(8);
    expect(await findCommonAncestor(hashes, 10, 5)).toBe(7);
    expect(hashes.asked).toEqual([10, 9, 8, 7]);
  });

  test("is a height with nothing stored: the follower started above it", async () => {
    expect(await findCommonAncestor(lookups(0, 8), 10, 5)).toBe(7);
  });

  test("is none when the chains part deeper than max_reorg_depth below the tip", async () => {
    const hashes = lookups(4);
    expect(await findCommonAncestor(hashes, 10, 5)).toBeNull();
    expect(hashes.asked).toEqual([10, 9, 8, 7, 6, 5]);
  });

  test("is none when the chains disagree down to the first block", async () => {
    expect(await findCommonAncestor(lookups(0), 3, 10)).toBeNull();
  });
});

test("a chain that does not link names the block, its parent and the node's block below it", () => {
  expect(unlinkedChain({ height: 5, hash: "b5", parentHash: "x" }, "a4").error).toBe("the node's blocks do not link: block 5 (b5) names parent x, but the node's block 4 is a4");
});
