// An independent reader for `zluda convert --to parquet`: DuckDB reads the tables and answers a few
// queries; ParquetDuckDbTest compares the answers with what the capture reader counts.
//
//   node duckdb-check.cjs DIR...      one JSON array on stdout, one object per DIR
//
// @duckdb/node-api is resolved through NODE_PATH (the test points it at the node_modules that
// install.sh made under trace-format/target/duckdb-node).
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error('usage: node duckdb-check.cjs PARQUET_DIR...');
    process.exit(2);
  }
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
  const one = async (sql) => (await rows(sql))[0];
  const version = (await one('SELECT version() AS v')).v;
  const out = [];
  for (const dir of dirs) {
    const t = (name) => `read_parquet('${(dir + '/' + name + '.parquet').replace(/'/g, "''")}')`;
    out.push({
      dir,
      duckdb: version,
      calls: await one(`SELECT count(*) AS n, count(DISTINCT function) AS functions,
                               count(*) FILTER (WHERE in_flight) AS in_flight, count(duration_ns) AS returned,
                               min(seq) AS min_seq, max(seq) AS max_seq FROM ${t('calls')}`),
      by_function: await rows(`SELECT function, count(*) AS n FROM ${t('calls')} GROUP BY function ORDER BY function`),
      arguments: await one(`SELECT count(*) AS n, count(DISTINCT call_seq) AS calls, typeof(any_value(value)) AS value_type
                            FROM ${t('arguments')}`),
      orphan_arguments: (await one(`SELECT count(*) AS n FROM ${t('arguments')} a ANTI JOIN ${t('calls')} c ON a.call_seq = c.seq`)).n,
      blobs: await one(`SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM ${t('blobs')}`),
      modules: await one(`SELECT count(*) AS n FROM ${t('modules')}`),
      kernel_launches: await one(`SELECT count(*) AS n, coalesce(sum(grid_x * grid_y * grid_z), 0) AS blocks
                                  FROM ${t('kernel_launches')}`),
    });
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(String((e && e.stack) || e));
  process.exit(1);
});
