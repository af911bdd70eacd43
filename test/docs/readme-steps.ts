// The README as a walk-through a test can run: its fenced blocks in order, each with what the
// `<!-- readme-test: … -->` comment before it says. The conventions (kept few on purpose):
//   (none)                               a ```sh block runs in the reader's shell, and must succeed
//   background NAME until URL            a ```sh block that runs until stopped (serve, a receiver, a
//                                        node): started in the background, ready once URL answers
//   skip: REASON                         a block the walk-through leaves out, and why
//   file PATH                            a block the reader is told to save: written to PATH
//   stop NAME                            (on its own) the reader stops the background block NAME
//   expect NAME "TEXT"                   (on its own) NAME's output shows TEXT before long
// Blocks of other languages without a `file` comment are shown, not run (config snippets, fragments).
import { splitFences } from "./markdown.ts";

export type Step =
  | { kind: "run"; line: number; script: string }
  | { kind: "background"; line: number; script: string; name: string; readyUrl: string }
  | { kind: "skip"; line: number; reason: string; script: string }
  | { kind: "file"; line: number; path: string; content: string }
  | { kind: "stop"; line: number; name: string }
  | { kind: "expect"; line: number; name: string; text: string };

const MARKER = /^<!-- readme-test: (.*) -->$/;
const SHELL = new Set(["sh", "bash", "shell"]);

/** The steps of a README, in order; throws on a marker it does not understand or one that governs no block. */
export function readmeSteps(text: string): Step[] {
  const lines = text.split("\n");
  const { fences } = splitFences(text);
  // A fence's opening line is the line before its first content line (or, for an empty fence, its closing line's).
  const fenceAt = new Map(fences.map((f) => [f.lines.length > 0 ? f.lines[0].line - 1 : -1, f]));
  const steps: Step[] = [];
  let pending: { line: number; words: string } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const marker = MARKER.exec(lines[i].trim());
    if (marker) {
      const words = marker[1].trim();
      const stop = /^stop (\w+)$/.exec(words);
      const expectation = /^expect (\w+) "((?:[^"\\]|\\.)*)"$/.exec(words);
      if (stop) steps.push({ kind: "stop", line, name: stop[1] });
      else if (expectation) steps.push({ kind: "expect", line, name: expectation[1], text: JSON.parse(`"${expectation[2]}"`) as string });
      else if (pending) throw new Error(`README.md:${line}: a second readme-test comment before the block of line ${pending.line}`);
      else pending = { line, words };
      continue;
    }
    const fence = fenceAt.get(line);
    if (!fence) continue;
    const body = fence.lines.map((l) => l.text).join("\n");
    const lang = fence.info.split(/\s/)[0];
    const words = pending?.words;
    pending = null;
    if (words === undefined) {
      if (SHELL.has(lang)) steps.push({ kind: "run", line, script: body });
      continue;
    }
    const skip = /^skip: (.+)$/.exec(words);
    const background = /^background (\w+) until (\S+)$/.exec(words);
    const file = /^file (\S+)$/.exec(words);
    if (skip) steps.push({ kind: "skip", line, reason: skip[1], script: body });
    else if (background && SHELL.has(lang)) steps.push({ kind: "background", line, script: body, name: background[1], readyUrl: background[2] });
    else if (file) steps.push({ kind: "file", line, path: file[1], content: `${body}\n` });
    else throw new Error(`README.md:${line}: "readme-test: ${words}" does not fit a \`\`\`${lang} block`);
  }
  if (pending) throw new Error(`README.md:${pending.line}: a readme-test comment with no block after it`);
  return steps;
}
