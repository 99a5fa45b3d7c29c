// A ROS 2 trajectory tracker node in roslib for `shakedown bench --tracker
// ros:ws://…` (rosbridge/robot TrackerLink): pure pursuit on the reference
// path. It takes the path (nav_msgs/Path, ENU) on /tracker/reference_path
// and answers every odometry message (nav_msgs/Odometry on the quad
// profile's /odom) with a position setpoint (geometry_msgs/PoseStamped on
// /cmd/pose) carrying the odometry's own stamp: the point a look-ahead
// distance along the path beyond the vehicle's projection on it. The
// projection only moves forward (a closed path such as a circle ends where
// it starts) and looks at most a few metres ahead of where it was. Once the
// projection is on the last segment and the vehicle is within the arrival
// radius of the end, it says so on /tracker/done (std_msgs/Bool) before the
// setpoint.
//
// Prints {"ready":true} once its subscriptions are on the server; when its
// stdin ends it prints a summary ({paths, answered, done, unanswered,
// maxOffPathM}) and exits 0. Exits 1 on a connection error.
// Usage: node tracker.mjs ws://127.0.0.1:9090 [lookahead_m=1] [arrive_m=0.5]
import { Ros, Topic } from 'roslib';

const url = process.argv[2];
const lookahead = Number(process.argv[3] ?? 1);
const arrive = Number(process.argv[4] ?? 0.5);
if (!url || !(lookahead > 0) || !(arrive > 0)) {
  console.error('usage: node tracker.mjs ws://host:port [lookahead_m] [arrive_m]');
  process.exit(2);
}

const ros = new Ros({ url });
await new Promise((res, rej) => { ros.on('connection', res); ros.on('error', (e) => rej(new Error('connect: ' + e))); })
  .catch((e) => { console.error('tracker.mjs: ' + e.message); process.exit(1); });
ros.on('close', () => { console.error('tracker.mjs: the rosbridge connection closed'); });

const stats = { paths: 0, answered: 0, done: 0, unanswered: 0, maxOffPathM: 0 };

// The path: points, cumulative arc length, the yaw quaternion of each pose.
let pts = [], arc = [], quats = [];
let seg = 0; // the segment the projection is on
let finished = false;

const sub = (a, b) => ({ x: a.x - b.x, y: a.y - b.y, z: a.z - b.z });
const dot = (a, b) => a.x * b.x + a.y * b.y + a.z * b.z;
const norm = (a) => Math.sqrt(dot(a, a));
const lerp = (a, b, u) => ({ x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u, z: a.z + (b.z - a.z) * u });

// project returns the closest point of segment i to p: {u, d, s}.
function project(i, p) {
  const a = pts[i], b = pts[i + 1], ab = sub(b, a);
  const l2 = dot(ab, ab);
  const u = l2 > 0 ? Math.min(1, Math.max(0, dot(sub(p, a), ab) / l2)) : 0;
  return { u, d: norm(sub(p, lerp(a, b, u))), s: arc[i] + u * (arc[i + 1] - arc[i]) };
}

// at returns the path point at arc length s (clamped to the end).
function at(s) {
  const total = arc[arc.length - 1];
  if (s >= total) return { p: pts[pts.length - 1], q: quats[quats.length - 1] };
  let i = seg;
  while (i < pts.length - 2 && arc[i + 1] < s) i++;
  const len = arc[i + 1] - arc[i];
  return { p: lerp(pts[i], pts[i + 1], len > 0 ? (s - arc[i]) / len : 0), q: quats[i + 1] };
}

const path = new Topic({ ros, name: '/tracker/reference_path', messageType: 'nav_msgs/msg/Path' });
path.subscribe((m) => {
  stats.paths++;
  pts = m.poses.map((ps) => ps.pose.position);
  quats = m.poses.map((ps) => ps.pose.orientation);
  if (pts.length === 1) { pts.push(pts[0]); quats.push(quats[0]); }
  arc = [0];
  for (let i = 1; i < pts.length; i++) arc.push(arc[i - 1] + norm(sub(pts[i], pts[i - 1])));
  seg = 0;
  finished = false;
});

const setpoint = new Topic({ ros, name: '/cmd/pose', messageType: 'geometry_msgs/msg/PoseStamped' });
const done = new Topic({ ros, name: '/tracker/done', messageType: 'std_msgs/msg/Bool' });
setpoint.advertise();
done.advertise();

const odom = new Topic({ ros, name: '/odom', messageType: 'nav_msgs/msg/Odometry' });
odom.subscribe((m) => {
  if (pts.length < 2) { stats.unanswered++; return; }
  const p = m.pose.pose.position;
  // The closest point on the current segment, the next one, and those
  // that start within a window of arc length ahead: the projection never
  // runs backwards, nor jumps to the far side of a closed path.
  let best = project(seg, p), bestSeg = seg;
  const window = arc[seg + 1] + 2 * lookahead + 2;
  for (let i = seg + 1; i < pts.length - 1 && arc[i] <= window; i++) {
    const c = project(i, p);
    if (c.d < best.d) { best = c; bestSeg = i; }
  }
  seg = bestSeg;
  stats.maxOffPathM = Math.max(stats.maxOffPathM, best.d);
  const target = at(best.s + lookahead);
  const end = pts[pts.length - 1];
  if (!finished && seg === pts.length - 2 && norm(sub(p, end)) <= arrive) {
    finished = true;
    stats.done++;
  }
  if (finished) done.publish({ data: true });
  setpoint.publish({ header: m.header, pose: { position: target.p, orientation: target.q } });
  stats.answered++;
});

// A round trip after the subscriptions: the server has taken them.
await new Promise((res, rej) => ros.getTopics(res, (e) => rej(new Error('getTopics: ' + e))))
  .catch((e) => { console.error('tracker.mjs: ' + e.message); process.exit(1); });
console.log(JSON.stringify({ ready: true }));

process.stdin.resume();
process.stdin.on('end', () => {
  odom.unsubscribe();
  path.unsubscribe();
  ros.close();
  console.log(JSON.stringify(stats));
  process.exit(0);
});
