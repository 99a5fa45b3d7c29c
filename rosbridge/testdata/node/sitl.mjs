// roslib against `shakedown sitl --rosbridge` (the quadrotor): discovers the
// graph through rosapi, subscribes to IMU and odometry and measures their
// rates, calls Trigger services (arm, takeoff), sends a follow-waypoints
// goal and waits for feedback and a result, then sends a second goal and
// cancels it. Prints one JSON object; exits 1 on any failure.
// Usage: node sitl.mjs ws://127.0.0.1:9090 [measureSeconds]
import { Ros, Topic, Service, Action } from 'roslib';

const url = process.argv[2];
const measureS = Number(process.argv[3] ?? 3);
const out = {};
const fail = (msg) => { console.error('sitl.mjs: ' + msg); console.log(JSON.stringify(out)); process.exit(1); };
const deadline = setTimeout(() => fail('timed out'), 90_000);

const ros = new Ros({ url });
await new Promise((res, rej) => { ros.on('connection', res); ros.on('error', (e) => rej(new Error('connect: ' + e))); });

const p = (fn) => new Promise((res, rej) => fn(res, rej));
out.topics = await p((res, rej) => ros.getTopics(res, rej));
out.nodes = await p((res, rej) => ros.getNodes(res, rej));
out.services = await p((res, rej) => ros.getServices(res, rej));
out.imuType = await p((res, rej) => ros.getTopicType('/imu/data', res, rej));

function measure(name, type) {
  const stamps = [];
  let wall0 = 0, wall1 = 0, last = null;
  const t = new Topic({ ros, name, messageType: type });
  t.subscribe((m) => {
    const now = performance.now();
    if (stamps.length === 0) wall0 = now;
    wall1 = now;
    stamps.push(m.header.stamp.sec + m.header.stamp.nanosec * 1e-9);
    last = m;
  });
  return () => {
    t.unsubscribe();
    const n = stamps.length;
    const span = stamps[n - 1] - stamps[0];
    return { count: n, stampHz: (n - 1) / span, wallHz: (n - 1) / ((wall1 - wall0) / 1000), last };
  };
}
const imu = measure('/imu/data', 'sensor_msgs/msg/Imu');
const odom = measure('/odom', 'nav_msgs/msg/Odometry');
await new Promise((r) => setTimeout(r, measureS * 1000));
const imuR = imu(), odomR = odom();
out.imu = { count: imuR.count, stampHz: imuR.stampHz, wallHz: imuR.wallHz, accelZ: imuR.last.linear_acceleration.z, frame: imuR.last.header.frame_id };
out.odom = { count: odomR.count, stampHz: odomR.stampHz, wallHz: odomR.wallHz, frame: odomR.last.header.frame_id, child: odomR.last.child_frame_id };

const call = (name) => p((res, rej) => new Service({ ros, name, serviceType: 'std_srvs/srv/Trigger' }).callService({}, res, rej));
out.arm = await call('/arm');
out.takeoff = await call('/takeoff');
// Wait on the status topic (JSON in std_msgs/String) until airborne.
out.airborne = await p((res) => {
  const st = new Topic({ ros, name: '/status', messageType: 'std_msgs/msg/String' });
  st.subscribe((m) => { const s = JSON.parse(m.data); if (s.alt_m > 2) { st.unsubscribe(); res(s); } });
});
out.missing = await p((res) => new Service({ ros, name: '/no_such_service', serviceType: 'std_srvs/srv/Trigger' }).callService({}, () => res('answered'), (e) => res('failed: ' + e)));

const action = new Action({ ros, name: '/follow_waypoints', actionType: 'shakedown_msgs/action/FollowWaypoints' });
const feedback = [];
out.result = await p((res, rej) => action.sendGoal(
  { waypoints: [{ x: 1, y: 1.5, z: 2.5 }], speed_ms: 2, accept_radius_m: 0.5 },
  res, (fb) => feedback.push(fb), (e) => rej(new Error('goal 1: ' + e))));
out.feedbackCount = feedback.length;
out.firstFeedback = feedback[0];

let canceledFeedback = 0;
const cancelled = p((res) => {
  const id = action.sendGoal({ waypoints: [{ x: 30, y: 0, z: 2.5 }], speed_ms: 1 },
    () => res('succeeded (not cancelled)'), () => { canceledFeedback++; }, (e) => res('failed: ' + e));
  setTimeout(() => action.cancelGoal(id), 500);
});
out.cancel = await cancelled;
out.cancelFeedback = canceledFeedback;
clearTimeout(deadline);
ros.close();
console.log(JSON.stringify(out));
