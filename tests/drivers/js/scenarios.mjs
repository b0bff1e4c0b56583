// The shared driver scenarios (the list the Python e2e suite covers) with the
// official JavaScript driver: auto-commit, explicit transactions (commit and
// rollback), managed transactions, errors and session recovery, every value
// type as a parameter and a result (temporal and spatial included), Node /
// Relationship / Path, bookmarks across sessions and `neo4j://` routing.
// Usage: node scenarios.mjs bolt://127.0.0.1:PORT
// Prints one line per scenario and "N passed, 0 failed" at the end; exits 1
// on the first failing scenario.
import neo4j from 'neo4j-driver'
import assert from 'node:assert/strict'

const boltUri = process.argv[2]
const routingUri = boltUri.replace(/^bolt:/, 'neo4j:')
const auth = neo4j.auth.basic('neo4j', 'x')
const { Point, Date: NDate, LocalTime, Time, LocalDateTime, DateTime, Duration } = neo4j.types

const scenarios = []
const scenario = (name, body) => scenarios.push({ name, body })

async function value (driver, query, params = {}) {
  const { records } = await driver.executeQuery(query, params)
  assert.equal(records.length, 1)
  return records[0].get(0)
}

scenario('auto-commit', async driver => {
  const session = driver.session()
  try {
    const res = await session.run('CREATE (n:AutoCommit {v: $v}) RETURN n.v AS v', { v: neo4j.int(7) })
    assert.equal(res.records[0].get('v').toNumber(), 7)
    assert.equal(res.summary.counters.updates().nodesCreated, 1)
    const count = await session.run('MATCH (n:AutoCommit) RETURN count(n) AS c')
    assert.equal(count.records[0].get('c').toNumber(), 1)
  } finally {
    await session.close()
  }
})

scenario('explicit transaction commit and rollback', async driver => {
  const session = driver.session()
  try {
    const rolledBack = await session.beginTransaction()
    await rolledBack.run('CREATE (:Tx {v: 1})')
    const inside = await rolledBack.run('MATCH (t:Tx) RETURN count(t) AS c')
    assert.equal(inside.records[0].get('c').toNumber(), 1, 'a transaction sees its own writes')
    await rolledBack.rollback()
    const committed = await session.beginTransaction()
    await committed.run('CREATE (:Tx {v: 2})')
    await committed.commit()
    const res = await session.run('MATCH (t:Tx) RETURN t.v AS v')
    assert.deepEqual(res.records.map(r => r.get('v').toNumber()), [2])
  } finally {
    await session.close()
  }
})

scenario('managed transactions', async driver => {
  const session = driver.session()
  try {
    await session.executeWrite(tx => tx.run('CREATE (:Managed {v: 3})'))
    const v = await session.executeRead(async tx => {
      const res = await tx.run('MATCH (m:Managed) RETURN m.v AS v')
      return res.records[0].get('v').toNumber()
    })
    assert.equal(v, 3)
  } finally {
    await session.close()
  }
})

scenario('errors and session recovery', async driver => {
  const session = driver.session()
  try {
    await assert.rejects(session.run('MATCH (n RETURN n'),
      e => e.code === 'Neo.ClientError.Statement.SyntaxError')
    await assert.rejects(session.run('RETURN 1 / 0 AS x'),
      e => e.code === 'Neo.ClientError.Statement.ArithmeticError')
    const again = await session.run('RETURN 1 AS x')
    assert.equal(again.records[0].get('x').toNumber(), 1)
    const tx = await session.beginTransaction()
    await assert.rejects(tx.run('RETURN $missing AS x'),
      e => e.code === 'Neo.ClientError.Statement.ParameterMissing')
    await tx.close()
    const after = await session.run('RETURN 2 AS x')
    assert.equal(after.records[0].get('x').toNumber(), 2)
  } finally {
    await session.close()
  }
})

scenario('primitive values round trip', async driver => {
  const params = {
    nothing: null,
    yes: true,
    small: neo4j.int(-16),
    big: neo4j.int('9007199254740993'),
    float: 1.5,
    text: 'héllo',
    bytes: new Int8Array([1, 2, -1]),
    list: [neo4j.int(1), 'two', [3.5]],
    map: { a: neo4j.int(1), b: { c: 'd' } }
  }
  const { records } = await driver.executeQuery(
    'RETURN $nothing AS nothing, $yes AS yes, $small AS small, $big AS big, $float AS float, ' +
    '$text AS text, $bytes AS bytes, $list AS list, $map AS map', params)
  const r = records[0]
  assert.equal(r.get('nothing'), null)
  assert.equal(r.get('yes'), true)
  assert.ok(r.get('small').equals(-16))
  assert.equal(r.get('big').toString(), '9007199254740993')
  assert.equal(r.get('float'), 1.5)
  assert.equal(r.get('text'), 'héllo')
  assert.deepEqual([...r.get('bytes')], [1, 2, -1])
  assert.deepEqual(r.get('list'), params.list)
  assert.deepEqual(r.get('map'), params.map)
})

scenario('temporal values round trip', async driver => {
  const date = new NDate(2015, 7, 21)
  const localTime = new LocalTime(21, 40, 32, 142000000)
  const time = new Time(21, 40, 32, 0, 3600)
  const localDateTime = new LocalDateTime(2015, 7, 21, 21, 40, 32, 142000000)
  const offsetDateTime = new DateTime(2015, 7, 21, 21, 40, 32, 0, -18000)
  const zonedDateTime = new DateTime(2015, 1, 21, 12, 0, 0, 0, 3600, 'Europe/Stockholm')
  const duration = new Duration(14, 3, 14706, 500000000)
  const { records } = await driver.executeQuery(
    'RETURN $date AS date, $lt AS lt, $t AS t, $ldt AS ldt, $odt AS odt, $zdt AS zdt, $dur AS dur, ' +
    'toString($zdt) AS zdtText, $date + duration(\'P1D\') AS next',
    { date, lt: localTime, t: time, ldt: localDateTime, odt: offsetDateTime, zdt: zonedDateTime, dur: duration })
  const r = records[0]
  assert.equal(r.get('date').toString(), '2015-07-21')
  assert.equal(r.get('lt').toString(), '21:40:32.142000000')
  assert.equal(r.get('t').toString(), '21:40:32+01:00')
  assert.equal(r.get('ldt').toString(), '2015-07-21T21:40:32.142000000')
  assert.equal(r.get('odt').toString(), '2015-07-21T21:40:32-05:00')
  const zdt = r.get('zdt')
  assert.equal(zdt.timeZoneId, 'Europe/Stockholm')
  assert.deepEqual([zdt.year, zdt.month, zdt.day, zdt.hour].map(Number), [2015, 1, 21, 12])
  assert.equal(r.get('zdtText'), '2015-01-21T12:00+01:00[Europe/Stockholm]')
  const dur = r.get('dur')
  assert.deepEqual([dur.months, dur.days, dur.seconds, dur.nanoseconds].map(Number), [14, 3, 14706, 500000000])
  assert.equal(r.get('next').toString(), '2015-07-22')
})

scenario('spatial values round trip', async driver => {
  const cartesian = new Point(neo4j.int(7203), 1.0, 2.5)
  const cartesian3d = new Point(neo4j.int(9157), 1.0, 2.0, 3.0)
  const geographic = new Point(neo4j.int(4326), 12.994341, 55.611784)
  const geographic3d = new Point(neo4j.int(4979), 12.5, 56.25, 100.0)
  const { records } = await driver.executeQuery(
    'RETURN $c AS c, $c3 AS c3, $g AS g, $g3 AS g3, point({x: 3, y: 4}) AS built, ' +
    'point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})) AS d, $g3.height AS h, $g.crs AS crs',
    { c: cartesian, c3: cartesian3d, g: geographic, g3: geographic3d })
  const r = records[0]
  for (const [key, sent] of [['c', cartesian], ['c3', cartesian3d], ['g', geographic], ['g3', geographic3d]]) {
    const got = r.get(key)
    assert.ok(neo4j.isPoint(got), `${key} is a Point`)
    assert.equal(Number(got.srid), Number(sent.srid))
    assert.deepEqual([got.x, got.y, got.z], [sent.x, sent.y, sent.z])
  }
  assert.equal(Number(r.get('built').srid), 7203)
  assert.equal(r.get('d'), 5.0)
  assert.equal(r.get('h'), 100.0)
  assert.equal(r.get('crs'), 'wgs-84')
  await driver.executeQuery('CREATE (:Place {at: $g})', { g: geographic })
  const stored = await value(driver, 'MATCH (p:Place) WHERE p.at = $g RETURN p.at', { g: geographic })
  assert.deepEqual([Number(stored.srid), stored.x, stored.y], [4326, geographic.x, geographic.y])
})

scenario('nodes, relationships and paths', async driver => {
  await driver.executeQuery(
    "CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})")
  const { records } = await driver.executeQuery(
    'MATCH p = (a:Person)-[k:KNOWS]->(b) RETURN a, k, b, p')
  const [a, k, b, p] = ['a', 'k', 'b', 'p'].map(key => records[0].get(key))
  assert.ok(neo4j.isNode(a) && neo4j.isRelationship(k) && neo4j.isNode(b) && neo4j.isPath(p))
  assert.deepEqual(a.labels, ['Person'])
  assert.equal(a.properties.age.toNumber(), 42)
  assert.equal(k.type, 'KNOWS')
  assert.equal(k.startNodeElementId, a.elementId)
  assert.equal(k.endNodeElementId, b.elementId)
  assert.equal(p.length, 1)
  assert.equal(p.start.elementId, a.elementId)
  assert.equal(p.end.elementId, b.elementId)
  assert.equal(p.segments[0].relationship.elementId, k.elementId)
  await assert.rejects(driver.executeQuery('RETURN $n AS n', { n: a }))
})

scenario('bookmarks across sessions', async driver => {
  const writer = driver.session()
  let bookmarks
  try {
    await writer.executeWrite(tx => tx.run('CREATE (:Bookmarked {v: 1})'))
    bookmarks = writer.lastBookmarks()
  } finally {
    await writer.close()
  }
  assert.ok(bookmarks.length > 0 && bookmarks.every(b => typeof b === 'string' && b.length > 0))
  const reader = driver.session({ bookmarks, defaultAccessMode: neo4j.session.READ })
  try {
    const res = await reader.run('MATCH (b:Bookmarked) RETURN count(b) AS c')
    assert.equal(res.records[0].get('c').toNumber(), 1)
  } finally {
    await reader.close()
  }
})

scenario('neo4j:// routing', async () => {
  const routed = neo4j.driver(routingUri, auth)
  try {
    await routed.verifyConnectivity()
    await routed.executeQuery('CREATE (:Routed {v: 1})', {}, { routing: neo4j.routing.WRITE })
    const { records } = await routed.executeQuery('MATCH (r:Routed) RETURN count(r) AS c', {},
      { routing: neo4j.routing.READ })
    assert.equal(records[0].get('c').toNumber(), 1)
  } finally {
    await routed.close()
  }
})

const driver = neo4j.driver(boltUri, auth)
let passed = 0
try {
  await driver.verifyConnectivity()
  for (const { name, body } of scenarios) {
    try {
      await body(driver)
      passed += 1
      console.log(`ok   ${name}`)
    } catch (e) {
      console.log(`FAIL ${name}: ${e.stack || e}`)
      console.log(`${passed} passed, 1 failed`)
      process.exitCode = 1
      break
    }
  }
  if (!process.exitCode) console.log(`${passed} passed, 0 failed`)
} finally {
  await driver.close()
}
