import { createConfig, lintFromString } from '@redocly/openapi-core';

/** Redocly's `recommended` ruleset over an OpenAPI document: each problem as `severity rule at pointer`. */
export async function openApiLintProblems(documentText: string): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: documentText, absoluteRef: 'openapi.json', config });
  return problems.map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}`);
}

/** Only the errors of {@link openApiLintProblems}. */
export async function openApiLintErrors(documentText: string): Promise<string[]> {
  return (await openApiLintProblems(documentText)).filter((problem) => problem.startsWith('error '));
}
