'use strict';
// Lets a child process of a test require the TypeScript sources: swc compiles them as they are required, as jest
// does for the tests.
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const options = {
    filename,
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
    module: { type: 'commonjs' },
  };
  module._compile(transformSync(readFileSync(filename, 'utf8'), options).code, filename);
};
