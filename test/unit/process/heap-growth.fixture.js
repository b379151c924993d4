// Child of heap-growth.spec.ts, run with --trace-gc-verbose: fixes the heap growth (unless told not to), then
// allocates until V8 has resized the old generation several times. V8 prints each new limit with its factor.
const [compiled, call] = [process.argv[2], process.argv[3] === 'call'];
const { fixHeapGrowth } = require(compiled);

const returned = call ? fixHeapGrowth() : 'not called';
const kept = [];
for (let i = 0; i < 4_000_000; i++) {
  kept.push({ i });
  if (kept.length > 1_000_000) kept.length = 0;
}
process.stderr.write(`${JSON.stringify({ returned })}\n`);
