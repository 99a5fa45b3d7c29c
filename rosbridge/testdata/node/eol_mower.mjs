// roslib beside `shakedown eol --connect` on a mower's graph (`shakedown
// sitl --vehicle mower --rosbridge`): checks through rosapi that the
// robot's topics are there, then watches, as any ROS node on the graph
// would, the requests the end-of-line runner publishes where the safety
// gate listens (/safety/cmd_vel, /safety/blade) and the gate's status.
// Prints "ready" on stderr once subscribed; when its stdin closes it prints
// one JSON object and exits. Exits 1 on any failure.
// Usage: node eol_mower.mjs ws://127.0.0.1:9090
import { Ros, Topic } from 'roslib';

const url = process.argv[2];
const out = { cmdCount: 0, maxVx: 0, bladeOn: 0, bladeCount: 0, latchedSeen: false, holds: [], lastVx: null, lastW: null, lastBlade: null, joints: 0 };
const fail = (msg) => { console.error('eol_mower.mjs: ' + msg); console.log(JSON.stringify(out)); process.exit(1); };
const deadline = setTimeout(() => fail('timed out'), 180_000);

const ros = new Ros({ url });
await new Promise((res, rej) => { ros.on('connection', res); ros.on('error', (e) => rej(new Error('connect: ' + e))); });
const p = (fn) => new Promise((res, rej) => fn(res, rej));
out.topics = (await p((res, rej) => ros.getTopics(res, rej))).topics;
out.services = await p((res, rej) => ros.getServices(res, rej));

new Topic({ ros, name: '/safety/cmd_vel', messageType: 'geometry_msgs/msg/Twist' }).subscribe((m) => {
  out.cmdCount++;
  out.maxVx = Math.max(out.maxVx, m.linear.x);
  out.lastVx = m.linear.x;
  out.lastW = m.angular.z;
});
new Topic({ ros, name: '/safety/blade', messageType: 'std_msgs/msg/Bool' }).subscribe((m) => {
  out.bladeCount++;
  if (m.data) out.bladeOn++;
  out.lastBlade = m.data;
});
new Topic({ ros, name: '/safety/status', messageType: 'std_msgs/msg/String' }).subscribe((m) => {
  const s = JSON.parse(m.data);
  if (s.latched) out.latchedSeen = true;
  if (s.hold && !out.holds.includes(s.hold)) out.holds.push(s.hold);
});
new Topic({ ros, name: '/joint_states', messageType: 'sensor_msgs/msg/JointState', throttle_rate: 100 }).subscribe(() => { out.joints++; });

// Subscriptions are sent in order on one socket; a round trip through
// rosapi after them means the server has them all.
await p((res, rej) => ros.getNodes(res, rej));
console.error('ready');
process.stdin.resume();
process.stdin.on('end', () => {
  clearTimeout(deadline);
  console.log(JSON.stringify(out));
  ros.close();
  process.exit(0);
});
