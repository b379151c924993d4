/** What a user copies to send their first events, for the project key and this server's address. */
export function snippets(token: string, host: string): Array<{ title: string; code: string }> {
  return [
    {
      title: 'Web (posthog-js)',
      code: `posthog.init('${token}', { api_host: '${host}' })`,
    },
    {
      title: 'Node (posthog-node)',
      code: `import { PostHog } from 'posthog-node'\nconst client = new PostHog('${token}', { host: '${host}' })\nclient.capture({ distinctId: 'user-1', event: 'signed up' })\nawait client.shutdown()`,
    },
    {
      title: 'curl',
      code: `curl -X POST ${host}/capture/ -H 'Content-Type: application/json' \\\n  -d '{"api_key": "${token}", "event": "hello", "distinct_id": "user-1"}'`,
    },
  ];
}
