/**
 * Prints one closing line that any CI reads: "tests: N passed, N failed" (plus skipped when any).
 * Plain JS because reporters are not transformed.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedSuites = results.numFailedTestSuites - countSuitesWithFailedTests(results);
    const failed = results.numFailedTests + Math.max(0, failedSuites);
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : '');
    process.stdout.write(`\n${line}\n`);
  }
}

/** A suite that failed to load has no failed tests; count it as one failure so it cannot pass silently. */
function countSuitesWithFailedTests(results) {
  return results.testResults.filter((suite) => suite.numFailingTests > 0).length;
}

module.exports = SummaryReporter;
