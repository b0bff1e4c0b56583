// The shared driver scenarios (issue 3; the same list in every client of
// tests/drivers/) with the official JavaScript driver: connect and
// authenticate (good and bad password), auto-commit, explicit transactions
// (commit and rollback), a managed transaction retried on a TransientError,
// several results open in one transaction (qid), PULL paging with has_more,
// DISCARD, RESET in the middle of a long stream, failure then recovery, every
// value type (temporal, spatial, bytes, nested lists and maps, Node /
// Relationship / Path), bookmarks across sessions, `neo4j://` routing, TLS.
// Usage: node scenarios.mjs bolt://127.0.0.1:PORT
// Environment (all optional, for settings only some servers have):
//   SCENARIO_USER / SCENARIO_PASSWORD  credentials (default neo4j / x)
//   SCENARIO_AUTH_ENFORCED=1           the server checks passwords: run the
//                                      bad-password scenario (else skipped)
//   SCENARIO_TLS_URI=bolt+ssc://...    a TLS listener with a self-signed
//                                      certificate (else the TLS scenario is skipped)
// Prints one line per scenario (ok / FAIL / skip) and
// "P passed, F failed, S skipped" at the end; exits 1 if any failed.
import neo4j from 'neo4j-driver'
import assert from 'node:assert/strict'

const boltUri = process.argv[2]
const routingUri = boltUri.replace(/^bolt:/, 'neo4j:')
const user = process.env.SCENARIO_USER || 'neo4j'
const password = process.env.SCENARIO_PASSWORD || 'x'
const auth = neo4j.auth.basic(user, password)
const { Point, Date: NDate, LocalTime, Time, LocalDateTime, DateTime, Duration } = neo4j.types

/** Thrown by a scenario that cannot run against this server; says why. */
class Skip extends Error {}

const scenarios = []
const scenario = (name, body) => scenarios.push({ name, body })

async function value (driver, query, params = {}) {
  const { records } = await driver.executeQuery(query, params)
  assert.equal(records.length, 1)
  return records[0].get(0)
}

scenario('connect and authenticate', async driver => {
  await driver.verifyConnectivity()
  const info = await driver.getServerInfo()
  assert.ok(info.protocolVersion >= 4, `negotiated Bolt ${info.protocolVersion}`)
})

scenario('bad password refused', async () => {
  if (process.env.SCENARIO_AUTH_ENFORCED !== '1') throw new Skip('the server does not check passwords')
  const wrong = neo4j.driver(boltUri, neo4j.auth.basic(user, password + '-wrong'))
  try {
    await assert.rejects(wrong.verifyConnectivity(),
      e => e.code === 'Neo.ClientError.Security.Unauthorized')
  } finally {
    await wrong.close()
  }
})

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

scenario('managed transaction retried on a TransientError', async driver => {
  await driver.executeQuery('CREATE (:Contended {v: 0})')
  // A second session holds a write on the node. A server that fails the
  // conflicting write at once (nereid) sends a TransientError and the driver
  // retries; one that waits on the lock (Neo4j) proceeds once the holder
  // commits. Either way the update lands exactly once, after the holder's.
  const holder = driver.session()
  const holderTx = await holder.beginTransaction()
  await holderTx.run('MATCH (c:Contended) SET c.v = 100')
  let released
  const release = () => { released ??= holderTx.commit().then(() => holder.close()); return released }
  const safety = setTimeout(release, 2000)
  const failures = []
  const session = driver.session()
  try {
    const attempts = await session.executeWrite(async tx => {
      if (failures.length > 0) await release()
      try {
        await tx.run('MATCH (c:Contended) SET c.v = c.v + 1')
      } catch (e) {
        failures.push(e.code)
        throw e
      }
      return failures.length + 1
    })
    await release()
    assert.ok(failures.every(code => code.startsWith('Neo.TransientError.')), `failures: ${failures}`)
    const v = await value(driver, 'MATCH (c:Contended) RETURN c.v')
    assert.equal(v.toNumber(), 101, `after ${attempts} attempt(s)`)
    return `${attempts} attempt(s), failures: ${failures.join(', ') || 'none (the server waited for the lock)'}`
  } finally {
    clearTimeout(safety)
    await release()
    await session.close()
  }
})

scenario('several results open in one transaction (qid)', async driver => {
  const session = driver.session({ fetchSize: 2 })
  try {
    const tx = await session.beginTransaction()
    const first = tx.run('UNWIND range(1, 5) AS x RETURN x')[Symbol.asyncIterator]()
    const second = tx.run('UNWIND range(10, 14) AS y RETURN y')[Symbol.asyncIterator]()
    let sum = 0
    for (;;) {
      const [a, b] = [await first.next(), await second.next()]
      if (a.done && b.done) break
      if (!a.done) sum += a.value.get('x').toNumber()
      if (!b.done) sum += b.value.get('y').toNumber()
    }
    await tx.commit()
    assert.equal(sum, 15 + 60)
  } finally {
    await session.close()
  }
})

scenario('PULL paging with has_more', async driver => {
  const session = driver.session({ fetchSize: 3 })
  try {
    const res = await session.run('UNWIND range(1, 10) AS x RETURN x')
    assert.deepEqual(res.records.map(r => r.get('x').toNumber()), [...Array(10).keys()].map(i => i + 1))
  } finally {
    await session.close()
  }
})

scenario('DISCARD', async driver => {
  const session = driver.session({ fetchSize: 2 })
  try {
    // summary() without reading: the driver discards the records; the
    // writes happen all the same.
    const summary = await session.run('UNWIND range(1, 50) AS i CREATE (:Discarded {i: i}) RETURN i').summary()
    assert.equal(summary.counters.updates().nodesCreated, 50)
    const c = await session.run('MATCH (d:Discarded) RETURN count(d) AS c')
    assert.equal(c.records[0].get('c').toNumber(), 50)
  } finally {
    await session.close()
  }
})

scenario('RESET in the middle of a long stream', async driver => {
  const session = driver.session({ fetchSize: 10 })
  const iterator = session.run('UNWIND range(1, 10000000) AS x RETURN x')[Symbol.asyncIterator]()
  for (let i = 1; i <= 3; i++) assert.equal((await iterator.next()).value.get('x').toNumber(), i)
  // Closing the session with a stream still open makes the driver send RESET.
  await session.close()
  const again = driver.session()
  try {
    const res = await again.run('RETURN 1 AS x')
    assert.equal(res.records[0].get('x').toNumber(), 1)
  } finally {
    await again.close()
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
    map: { a: neo4j.int(1), b: { c: 'd', e: [neo4j.int(2), { f: [] }] } }
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
  assert.equal(r.get('zdtText'), '2015-01-21T12:00:00+01:00[Europe/Stockholm]')
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

scenario('TLS (bolt+ssc, self-signed certificate)', async () => {
  const tlsUri = process.env.SCENARIO_TLS_URI
  if (!tlsUri) throw new Skip('no TLS listener given (SCENARIO_TLS_URI)')
  const secure = neo4j.driver(tlsUri, auth)
  try {
    const { records } = await secure.executeQuery('RETURN 1 AS x')
    assert.equal(records[0].get('x').toNumber(), 1)
  } finally {
    await secure.close()
  }
})

const driver = neo4j.driver(boltUri, auth)
const counts = { passed: 0, failed: 0, skipped: 0 }
try {
  for (const { name, body } of scenarios) {
    try {
      // Every scenario starts from an empty graph, so one server (the
      // reference Neo4j of tests/sidebyside) can serve every client in turn.
      await driver.executeQuery('MATCH (n) DETACH DELETE n')
      const note = await body(driver)
      counts.passed += 1
      console.log(`ok   ${name}${typeof note === 'string' ? ` -- ${note}` : ''}`)
    } catch (e) {
      if (e instanceof Skip) {
        counts.skipped += 1
        console.log(`skip ${name}: ${e.message}`)
      } else {
        counts.failed += 1
        console.log(`FAIL ${name}: ${String(e.stack || e).split('\n').slice(0, 4).join(' | ')}`)
      }
    }
  }
} finally {
  await driver.close()
}
console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`)
if (counts.failed > 0) process.exitCode = 1
