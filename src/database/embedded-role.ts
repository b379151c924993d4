import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The ordinary role the service connects as to the embedded PostgreSQL, and the database it owns. */
export const SERVICE_ROLE = 'hogbase';
export const SERVICE_DATABASE = 'hogbase';

/** Owning its database is all the role may do: it cannot make databases or roles, replicate or bypass row security. */
const ROLE_ATTRIBUTES = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS';

interface RoleRow {
  rolsuper: boolean;
  rolcreatedb: boolean;
  rolcreaterole: boolean;
  rolreplication: boolean;
  rolbypassrls: boolean;
  rolcanlogin: boolean;
  rolpassword: string | null;
}

/**
 * As the cluster's superuser (`adminUrl` names the database to connect to): makes the service's role and database if
 * missing, keeps the role ordinary with the given password, and hands it every object of the database that is not
 * its own yet (data directories made before the role existed have them all owned by the superuser). Writes nothing
 * when all is in place, so every process of an installation may call it at boot. Returns how many objects changed
 * owner.
 */
export async function prepareServiceRole(adminUrl: (database: string) => string, password: string): Promise<number> {
  await withClient(adminUrl('postgres'), async (admin) => {
    await ensureRole(admin, password);
    await ensureDatabase(admin);
  });
  return withClient(adminUrl(SERVICE_DATABASE), transferOwnership);
}

async function ensureRole(admin: Client, password: string): Promise<void> {
  const { rows } = await admin.query<RoleRow>(
    `SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin, rolpassword
     FROM pg_authid WHERE rolname = $1`,
    [SERVICE_ROLE],
  );
  // The server receives a SCRAM verifier, never the password: a failing statement is written to the server's log.
  const setPassword = `PASSWORD ${admin.escapeLiteral(scramVerifier(password))}`;
  const role = rows[0];
  if (!role) {
    await admin.query(`CREATE ROLE ${SERVICE_ROLE} ${ROLE_ATTRIBUTES} ${setPassword}`);
    return;
  }
  const ordinary = role.rolcanlogin && !role.rolsuper && !role.rolcreatedb && !role.rolcreaterole && !role.rolreplication && !role.rolbypassrls;
  if (!ordinary) await admin.query(`ALTER ROLE ${SERVICE_ROLE} ${ROLE_ATTRIBUTES}`);
  if (!verifierMatches(role.rolpassword, password)) await admin.query(`ALTER ROLE ${SERVICE_ROLE} ${setPassword}`);
}

async function ensureDatabase(admin: Client): Promise<void> {
  const { rows } = await admin.query<{ owner: string }>(
    'SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1',
    [SERVICE_DATABASE],
  );
  if (rows.length === 0) await admin.query(`CREATE DATABASE ${SERVICE_DATABASE} OWNER ${SERVICE_ROLE}`);
  else if (rows[0].owner !== SERVICE_ROLE) await admin.query(`ALTER DATABASE ${SERVICE_DATABASE} OWNER TO ${SERVICE_ROLE}`);
}

/** The database's own schemas: public, the queue's, any other an earlier version made; not PostgreSQL's. */
const OWN_SCHEMAS = `SELECT oid FROM pg_namespace WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\\_%'`;
const notOwned = (column: string) => `${column} <> '${SERVICE_ROLE}'::regrole`;
/** Objects an extension made stay the extension's (pg_trgm's functions and types belong to the bootstrap superuser). */
const notInExtension = (catalog: string, oid: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

/**
 * Each query lists the statements for one kind of object. Tables come before sequences: a table takes its serial and
 * identity sequences along, and those cannot change owner alone. Indexes, TOAST tables, row types and array types
 * follow their table or type.
 */
const TRANSFERS = [
  // pg_database_owner (public's owner since PostgreSQL 15) stands for the database's owner, the role itself.
  `SELECT format('ALTER SCHEMA %I OWNER TO ${SERVICE_ROLE}', nspname) FROM pg_namespace
   WHERE oid IN (${OWN_SCHEMAS}) AND ${notOwned('nspowner')} AND nspowner <> 'pg_database_owner'::regrole`,
  `SELECT format('ALTER %s %s OWNER TO ${SERVICE_ROLE}',
     CASE relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, oid::regclass)
   FROM pg_class WHERE relnamespace IN (${OWN_SCHEMAS}) AND relkind IN ('r', 'p', 'v', 'm', 'f')
     AND ${notOwned('relowner')} AND ${notInExtension('pg_class', 'oid')}`,
  `SELECT format('ALTER SEQUENCE %s OWNER TO ${SERVICE_ROLE}', oid::regclass) FROM pg_class
   WHERE relnamespace IN (${OWN_SCHEMAS}) AND relkind = 'S' AND ${notOwned('relowner')} AND ${notInExtension('pg_class', 'oid')}`,
  `SELECT format('ALTER ROUTINE %s OWNER TO ${SERVICE_ROLE}', oid::regprocedure) FROM pg_proc
   WHERE pronamespace IN (${OWN_SCHEMAS}) AND ${notOwned('proowner')} AND ${notInExtension('pg_proc', 'oid')}`,
  `SELECT format('ALTER %s %s OWNER TO ${SERVICE_ROLE}', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype)
   FROM pg_type t LEFT JOIN pg_class c ON c.oid = t.typrelid
   WHERE t.typnamespace IN (${OWN_SCHEMAS}) AND ${notOwned('t.typowner')} AND ${notInExtension('pg_type', 't.oid')}
     AND (t.typrelid = 0 OR c.relkind = 'c') AND t.typtype <> 'm'
     AND NOT EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = t.oid)`,
];

/** In one transaction: an installation either keeps its old owners or has them all changed. */
async function transferOwnership(admin: Client): Promise<number> {
  let changed = 0;
  await admin.query('BEGIN');
  try {
    for (const transfer of TRANSFERS) {
      const { rows } = await admin.query<{ format: string }>(transfer);
      for (const { format } of rows) await admin.query(format);
      changed += rows.length;
    }
    await admin.query('COMMIT');
  } catch (error) {
    await admin.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return changed;
}

/** PostgreSQL's SCRAM-SHA-256 verifier of a password (RFC 5802 and 7677, as `\password` in psql computes it). */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${serverKey}`;
}

/** Whether a stored verifier is the one of this password (recomputed with its salt and iteration count). */
export function verifierMatches(stored: string | null, password: string): boolean {
  const parts = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored ?? '');
  if (!parts) return false;
  return scramVerifier(password, Buffer.from(parts[2], 'base64'), Number(parts[1])) === stored;
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
