'use strict';
// Reference: the cheapest possible JSON POST route on the same Fastify, in its own process.
const fastify = require('fastify')({ logger: false });
fastify.post('/capture/', async () => ({ status: 1 }));
fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
