import pg from 'pg';

/**
 * One statement on its own connection to `serverUrl` (CREATE/DROP DATABASE, which cannot run in a
 * transaction or on a pool): the throwaway databases of the soak and the propagation measure.
 */
export async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
