// A ground station written with node-mavlink (an independent MAVLink
// implementation) that flies `shakedown sitl` the way QGroundControl and
// MAVSDK do, step by step, printing one line per step:
//   step <name>: ok <detail>      or      step <name>: FAIL <why>
// and exiting 1 at the first failure.
//
// Usage: node gcs.mjs <udp port of the vehicle on 127.0.0.1> <speed>
import dgram from 'node:dgram'
import { PassThrough } from 'node:stream'
import { MavLinkPacketSplitter, MavLinkPacketParser, MavLinkProtocolV2, minimal, common } from 'node-mavlink'
import { MSG_ID_MAGIC_NUMBER } from 'mavlink-mappings'

const port = Number(process.argv[2])
const speed = Number(process.argv[3] || 1)
const REGISTRY = { ...minimal.REGISTRY, ...common.REGISTRY }
const SYS = 255; const COMP = 190 // a ground station
const VEHICLE = 1

const sock = dgram.createSocket('udp4')
const input = new PassThrough()
// PROTOCOL_VERSION's CRC extra (217, minimal.xml) is missing from
// node-mavlink 2.3.0's table; without it the splitter drops the frame.
const magicNumbers = { ...MSG_ID_MAGIC_NUMBER, 300: 217 }
let crcErrors = 0
const reader = input.pipe(new MavLinkPacketSplitter({}, { magicNumbers, onCrcError: () => { crcErrors++ } })).pipe(new MavLinkPacketParser())
const proto = new MavLinkProtocolV2(SYS, COMP)
let seq = 0
let received = [] // { name, msg, sys, v2 }
const waiters = new Set()

sock.on('message', buf => input.write(buf))
reader.on('data', packet => {
  const clazz = REGISTRY[packet.header.msgid]
  let msg; let name
  if (clazz) {
    msg = packet.protocol.data(packet.payload, clazz); name = clazz.MSG_NAME
  } else if (packet.header.msgid === 300) {
    // node-mavlink 2.3.0 has no PROTOCOL_VERSION class (minimal.xml's id
    // 300): decode its three uint16 by hand (a MAVLink 2 payload may be
    // truncated of trailing zeros).
    const p = Buffer.concat([packet.payload, Buffer.alloc(22)])
    msg = { version: p.readUInt16LE(0), minVersion: p.readUInt16LE(2), maxVersion: p.readUInt16LE(4) }; name = 'PROTOCOL_VERSION'
  } else {
    return
  }
  const rec = { name, msg, sys: packet.header.sysid, v2: packet.protocol instanceof MavLinkProtocolV2 }
  received.push(rec)
  for (const w of waiters) w(rec)
})

function send (msg) {
  const buf = proto.serialize(msg, seq++ & 255)
  return new Promise((resolve, reject) => sock.send(buf, port, '127.0.0.1', err => err ? reject(err) : resolve()))
}

// wait resolves with the first message (from now on) for which pred holds,
// or rejects after vehicleS of vehicle time (plus slack for a loaded machine).
function wait (what, pred, vehicleS) {
  return new Promise((resolve, reject) => {
    const w = rec => { if (rec.sys === VEHICLE && pred(rec)) { done(); resolve(rec.msg) } }
    const timer = setTimeout(() => { done(); reject(new Error(`no ${what} within ${vehicleS} s`)) }, vehicleS / speed * 1000 + 5000)
    const done = () => { clearTimeout(timer); waiters.delete(w) }
    waiters.add(w)
  })
}

const is = name => rec => rec.name === name

function command (cmd, params, target = VEHICLE) {
  const m = new common.CommandLong()
  m.targetSystem = target; m.targetComponent = target === 0 ? 0 : 1
  m.command = cmd; m.confirmation = 0
  const p = [0, 0, 0, 0, 0, 0, 0]
  params.forEach((v, i) => { p[i] = v })
  ;[m._param1, m._param2, m._param3, m._param4, m._param5, m._param6, m._param7] = p
  return m
}

async function ack (cmd, params) {
  const got = wait(`COMMAND_ACK of ${cmd}`, r => r.name === 'COMMAND_ACK' && r.msg.command === cmd, 3)
  await send(command(cmd, params))
  return (await got).result
}

let lastHeartbeat = null
const hb = () => lastHeartbeat
waiters.add(rec => { if (rec.name === 'HEARTBEAT' && rec.sys === VEHICLE) lastHeartbeat = rec.msg })
const ARMED = 128
const mode = m => `${(m.customMode >> 16) & 0xff}.${(m.customMode >> 24) & 0xff}`
const MODE = { hold: '4.3', mission: '4.4', rtl: '4.5', land: '4.6' }

let failed = false
async function step (name, fn) {
  if (failed) return
  try {
    const detail = await fn()
    console.log(`step ${name}: ok ${detail ?? ''}`.trimEnd())
  } catch (e) {
    console.log(`step ${name}: FAIL ${e.message}`)
    failed = true
  }
}
function expect (cond, why) { if (!cond) throw new Error(why) }

// The mission: a take-off to 5 m, four waypoints (2-m acceptance radius), no
// land: RTL brings it home.
const home = { lat: 47.397742, lon: 8.545594 }
const mPerDegLat = 111320
const mPerDegLon = 111320 * Math.cos(home.lat * Math.PI / 180)
const wp = (n, e) => [Math.round((home.lat + n / mPerDegLat) * 1e7), Math.round((home.lon + e / mPerDegLon) * 1e7)]
const plan = [[22, 0, 0], [16, 20, 0], [16, 20, 20], [16, 0, 20], [16, 0, 40]] // [command, north, east]
function item (i) {
  const m = new common.MissionItemInt()
  const [cmd, n, e] = plan[i]
  m.targetSystem = VEHICLE; m.targetComponent = 1; m.seq = i
  m.frame = 6 // MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
  m.command = cmd; m.current = i === 0 ? 1 : 0; m.autocontinue = 1
  m.param1 = 0; m.param2 = cmd === 16 ? 2 : 0; m.param3 = 0; m.param4 = NaN
  ;[m.x, m.y] = wp(n, e)
  m.z = 5; m.missionType = 0
  return m
}

async function main () {
  await new Promise(resolve => sock.bind(0, '127.0.0.1', resolve))
  const gcsHeartbeat = () => {
    const m = new minimal.Heartbeat()
    m.type = 6; m.autopilot = 8; m.baseMode = 0; m.customMode = 0; m.systemStatus = 4; m.mavlinkVersion = 3
    return send(m)
  }
  const beat = setInterval(gcsHeartbeat, 1000)

  await step('heartbeat', async () => {
    const got = wait('HEARTBEAT', is('HEARTBEAT'), 5)
    await gcsHeartbeat()
    const m = await got
    expect(m.type === 2 && m.autopilot === 12, `type ${m.type} autopilot ${m.autopilot}; want quadrotor, PX4`)
    expect(mode(m) === MODE.hold && !(m.baseMode & ARMED), `mode ${mode(m)} base ${m.baseMode}; want Hold, disarmed`)
    return `quadrotor, PX4, Hold, disarmed, base_mode ${m.baseMode}`
  })
  await step('protocol version', async () => {
    const got = wait('PROTOCOL_VERSION', is('PROTOCOL_VERSION'), 3)
    const r = await ack(519, [1])
    const pv = await got
    expect(r === 0 && pv.version === 200, `ack ${r}, version ${pv.version}`)
    const v1 = received.filter(x => x.sys === VEHICLE && !x.v2).length
    const v2 = received.filter(x => x.sys === VEHICLE && x.v2).length
    return `MAVLink ${pv.version} (min ${pv.minVersion}, max ${pv.maxVersion}); ${v2} MAVLink-2 frames, ${v1} MAVLink-1 (before our first frame)`
  })
  await step('parameters', async () => {
    const values = new Map()
    let count = -1
    const all = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${values.size} of ${count} parameters`)), 3 / speed * 1000 + 5000)
      waiters.add(function w (rec) {
        if (rec.name !== 'PARAM_VALUE') return
        values.set(rec.msg.paramId, rec.msg.paramValue); count = rec.msg.paramCount
        if (values.size === count) { clearTimeout(timer); waiters.delete(w); resolve() }
      })
    })
    const m = new common.ParamRequestList(); m.targetSystem = VEHICLE; m.targetComponent = 1
    await send(m)
    await all
    const one = wait('PARAM_VALUE MIS_TAKEOFF_ALT', r => r.name === 'PARAM_VALUE' && r.msg.paramId === 'MIS_TAKEOFF_ALT', 3)
    const rd = new common.ParamRequestRead(); rd.targetSystem = VEHICLE; rd.targetComponent = 1; rd.paramId = 'MIS_TAKEOFF_ALT'; rd.paramIndex = -1
    await send(rd)
    const v = await one
    return `${count} parameters listed; MIS_TAKEOFF_ALT = ${v.paramValue.toFixed(1)} m`
  })
  await step('mission upload', async () => {
    const done = wait('MISSION_ACK', is('MISSION_ACK'), 10)
    const serve = rec => { if (rec.name === 'MISSION_REQUEST_INT' && rec.sys === VEHICLE) send(item(rec.msg.seq)) }
    waiters.add(serve)
    const c = new common.MissionCount(); c.targetSystem = VEHICLE; c.targetComponent = 1; c.count = plan.length; c.missionType = 0
    await send(c)
    const a = await done
    waiters.delete(serve)
    expect(a.type === 0, `MISSION_ACK type ${a.type}`)
    return `${plan.length} items accepted`
  })
  await step('mission download', async () => {
    const cnt = wait('MISSION_COUNT', is('MISSION_COUNT'), 3)
    const l = new common.MissionRequestList(); l.targetSystem = VEHICLE; l.targetComponent = 1; l.missionType = 0
    await send(l)
    const n = (await cnt).count
    expect(n === plan.length, `count ${n}`)
    for (let i = 0; i < n; i++) {
      const got = wait(`MISSION_ITEM_INT ${i}`, r => r.name === 'MISSION_ITEM_INT' && r.msg.seq === i, 3)
      const rq = new common.MissionRequestInt(); rq.targetSystem = VEHICLE; rq.targetComponent = 1; rq.seq = i; rq.missionType = 0
      await send(rq)
      const it = await got; const want = item(i)
      expect(it.command === want.command && it.x === want.x && it.y === want.y && it.z === want.z && it.frame === want.frame,
        `item ${i}: ${JSON.stringify(it)}`)
    }
    const a = new common.MissionAck(); a.targetSystem = VEHICLE; a.targetComponent = 1; a.type = 0; a.missionType = 0
    await send(a)
    return `${n} items, the same as uploaded`
  })
  await step('command to system 0 refused', async () => {
    const acked = wait('COMMAND_ACK', r => r.name === 'COMMAND_ACK' && r.msg.command === 400, 2).then(() => true, () => false)
    await send(command(400, [1], 0))
    const later = wait('HEARTBEAT', is('HEARTBEAT'), 2)
    const h = await later
    expect(!(h.baseMode & ARMED), 'ARM to system 0 armed the vehicle')
    expect(!(await acked), 'ARM to system 0 was acknowledged')
    return 'ARM to 0/0: not executed, not acknowledged'
  })
  await step('arm', async () => {
    const r = await ack(400, [1])
    expect(r === 0, `COMMAND_ACK result ${r}`)
    const h = await wait('armed HEARTBEAT', r => r.name === 'HEARTBEAT' && (r.msg.baseMode & ARMED), 2)
    return `ACCEPTED, base_mode ${h.baseMode}`
  })
  await step('mission', async () => {
    const r = await ack(300, [0, 0])
    expect(r === 0, `MISSION_START result ${r}`)
    const h = await wait('Mission mode', r => r.name === 'HEARTBEAT' && mode(r.msg) === MODE.mission, 2)
    const ls = await wait('landed_state TAKEOFF', r => r.name === 'EXTENDED_SYS_STATE' && r.msg.landedState === 3, 10)
    await wait('item 1 reached', r => r.name === 'MISSION_ITEM_REACHED' && r.msg.seq === 1, 90)
    return `AUTO.MISSION (${mode(h)}), take-off item as landed_state TAKEOFF (${ls.landedState}), items 0 and 1 reached`
  })
  await step('pause', async () => {
    const r = await ack(176, [1, 4, 3])
    expect(r === 0, `DO_SET_MODE Hold: result ${r}`)
    const mc = await wait('MISSION_CURRENT PAUSED', r => r.name === 'MISSION_CURRENT' && r.msg.missionState === 4, 3)
    // The heartbeat that carries the new mode may come just after the
    // mission status of the same step: wait for it, as a GCS would.
    const h = await wait('Hold HEARTBEAT', r => r.name === 'HEARTBEAT' && mode(r.msg) === MODE.hold, 2)
    return `AUTO.LOITER (${mode(h)}), MISSION_CURRENT seq ${mc.seq} PAUSED`
  })
  await step('resume from the current item', async () => {
    const next = wait('next item reached', is('MISSION_ITEM_REACHED'), 90)
    const r = await ack(176, [1, 4, 4])
    expect(r === 0, `DO_SET_MODE Mission: result ${r}`)
    const m = await next
    expect(m.seq === 2, `the first item reached after the resume is ${m.seq}; want 2`)
    await wait('item 4 reached', r => r.name === 'MISSION_ITEM_REACHED' && r.msg.seq === 4, 120)
    const mc = await wait('MISSION_CURRENT', is('MISSION_CURRENT'), 3)
    return `item 2 reached next (not 0), then 3 and 4; MISSION_CURRENT state ${mc.missionState} (COMPLETE = 5)`
  })
  await step('RTL', async () => {
    const r = await ack(20, [])
    expect(r === 0, `NAV_RETURN_TO_LAUNCH: result ${r}`)
    await wait('landed_state LANDING', r => r.name === 'EXTENDED_SYS_STATE' && r.msg.landedState === 4, 120)
    expect(mode(hb()) === MODE.rtl, `mode during the descent ${mode(hb())}; want AUTO.RTL`)
    await wait('disarmed', r => r.name === 'HEARTBEAT' && !(r.msg.baseMode & ARMED), 90)
    const gp = await wait('GLOBAL_POSITION_INT', is('GLOBAL_POSITION_INT'), 2)
    const dn = (gp.lat / 1e7 - home.lat) * mPerDegLat; const de = (gp.lon / 1e7 - home.lon) * mPerDegLon
    return `descent in AUTO.RTL with landed_state LANDING, landed and disarmed ${Math.hypot(dn, de).toFixed(2)} m from home`
  })
  await step('framing', async () => {
    expect(crcErrors === 0, `${crcErrors} frames failed their CRC`)
    return `${received.length} messages from the vehicle, none with a bad CRC`
  })
  clearInterval(beat)
  sock.close()
  process.exit(failed ? 1 : 0)
}

main().catch(e => { console.log(`step setup: FAIL ${e.stack}`); process.exit(1) })
