'use strict';
// Reference: the cheapest possible JSON POST route on the same Fastify, in its own process. BARE_REPLIES
// (JSON: path → reply) adds routes that parse the body and send a fixed reply, so a reference can send
// as many bytes as the route it stands beside.
const fastify = require('fastify')({ logger: false });
fastify.post('/capture/', async () => ({ status: 1 }));
for (const [path, reply] of Object.entries(JSON.parse(process.env.BARE_REPLIES ?? '{}'))) fastify.post(path, async () => reply);
fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
