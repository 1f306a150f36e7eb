// Runs a wasm32-wasip1 test binary under Node's WASI, for the
// cross-platform determinism check: node .ci/wasi-run.mjs FILE.wasm [args...]
// Exits with the binary's exit code, or 1 when it aborts (a failed test).
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, exit } from 'node:process';

const [file, ...args] = argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, returnOnExit: true });
try {
  const module = await WebAssembly.compile(await readFile(file));
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  exit(wasi.start(instance));
} catch (error) {
  console.error(`${file}: ${error}`);
  exit(1);
}
