import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '../support/service-process';

const ROOT = join(__dirname, '..', '..');

describe('the service’s node flags (package.json config.node_flags)', () => {
  it('are given by `npm start` and `npm run up`', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe('node $npm_package_config_node_flags dist/main.js');
    expect(scripts.up).toMatch(/&& node \$npm_package_config_node_flags dist\/main\.js$/);
  });

  it('are the Dockerfile’s command line too', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8'))![1];
    expect(JSON.parse(cmd)).toEqual(['node', ...SERVICE_NODE_FLAGS, 'dist/main.js']);
  });

  it('expose the collector the payload worker runs after each payload', () => {
    expect(SERVICE_NODE_FLAGS).toEqual(['--expose-gc']);
  });
});
