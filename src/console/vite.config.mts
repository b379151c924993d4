import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The console's build: the sources in this folder become dist/console (index.html and hashed files under assets/),
 * which the server serves at `/`. Run from the repository root after `nest build`, which must not clear dist/.
 */
const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  // Everything the page needs is bundled: the console works with no network beyond this server.
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 700,
  },
});
