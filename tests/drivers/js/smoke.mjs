// End-to-end smoke test with the official JavaScript driver.
// Usage: node smoke.mjs bolt://127.0.0.1:PORT
import neo4j from 'neo4j-driver'
import assert from 'node:assert/strict'

const uri = process.argv[2]
const driver = neo4j.driver(uri, neo4j.auth.basic('neo4j', 'x'))
try {
  await driver.verifyConnectivity()
  await driver.executeQuery(
    "CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})")
  const { records } = await driver.executeQuery(
    'MATCH (a:Person)-[k:KNOWS]->(b) WHERE a.age > 40 RETURN a, k, b, a.name AS name ORDER BY name LIMIT 10')
  assert.equal(records.length, 1)
  const a = records[0].get('a'); const k = records[0].get('k'); const b = records[0].get('b')
  assert.ok(neo4j.isNode(a) && neo4j.isRelationship(k) && neo4j.isNode(b))
  assert.deepEqual(a.labels, ['Person'])
  assert.equal(a.properties.name, 'Ann')
  assert.equal(k.type, 'KNOWS')
  assert.equal(k.startNodeElementId, a.elementId)
  assert.equal(k.endNodeElementId, b.elementId)

  const paths = await driver.executeQuery('MATCH p=(a)-[:KNOWS]->(b) RETURN p')
  const p = paths.records[0].get('p')
  assert.ok(neo4j.isPath(p))
  assert.equal(p.length, 1)
  assert.equal(p.start.properties.name, 'Ann')
  assert.equal(p.end.properties.name, 'Bob')

  const session = driver.session()
  try {
    const tx = await session.beginTransaction()
    await tx.run('CREATE (:T {v: 1})')
    await tx.rollback()
    const tx2 = await session.beginTransaction()
    await tx2.run('CREATE (:T {v: 2})')
    await tx2.commit()
    const res = await session.run('MATCH (t:T) RETURN t.v AS v')
    assert.deepEqual(res.records.map(r => r.get('v').toNumber()), [2])
    await assert.rejects(session.run('MATCH (n RETURN n'),
      e => e.code === 'Neo.ClientError.Statement.SyntaxError' && /line 1, column 10/.test(e.message))
    const again = await session.run('RETURN 1 AS x')
    assert.equal(again.records[0].get('x').toNumber(), 1)
  } finally {
    await session.close()
  }
  console.log('js driver: all checks passed')
} finally {
  await driver.close()
}
