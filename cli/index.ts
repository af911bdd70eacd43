#!/usr/bin/env bun
import { runCli } from "./run.ts";

// No top-level await: the single binary is compiled to bytecode, which Bun builds as CommonJS.
runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
