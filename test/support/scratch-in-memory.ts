// Preloaded by every test process (bunfig.toml): the suite's scratch folders (each test daemon's
// data folder and SQLite file, the CLI bundle, Chromium's profile) go to a folder of this user's
// in /dev/shm, where the machine has one with room, unless TMPDIR is set already. On a disk each
// SQLite checkpoint and close waits for the disk, and the kernel's writeback takes CPU besides:
// the SQLite run took 5–9 s and 5–11 s of CPU less in memory (docs/operations.md).
import { chmodSync, lstatSync, mkdirSync, statfsSync } from "node:fs";

const ROOM = 2 * 1024 ** 3;

function inMemory(): string | null {
  if (process.env.TMPDIR || typeof process.getuid !== "function") return null;
  try {
    const fs = statfsSync("/dev/shm");
    if (fs.bavail * fs.bsize < ROOM) return null;
    const dir = `/dev/shm/chainwatch-tests-${process.getuid()}`;
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    // /dev/shm is shared: use the folder only when it is this user's own and no one else's to write
    // or list. Others may pass through it (0711), as through /tmp: a test that runs PostgreSQL's
    // server as the `postgres` user gives it a folder of its own in here.
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o066) !== 0) return null;
    if ((st.mode & 0o777) !== 0o711) chmodSync(dir, 0o711);
    return dir;
  } catch {
    return null;
  }
}

const dir = inMemory();
if (dir) process.env.TMPDIR = dir;
