import { createConfig, lintFromString } from '@redocly/openapi-core';

/** Redocly's `recommended` ruleset over an OpenAPI document: its errors as `rule at pointer: message`. */
export async function openApiLintErrors(documentText: string): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: documentText, absoluteRef: 'openapi.json', config });
  return problems
    .filter((problem) => problem.severity === 'error')
    .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`);
}
