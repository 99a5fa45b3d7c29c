// roslib against `shakedown mission serve --rosbridge`: the mission manager
// on a ROS 2 graph. Watches the status topic, publishes commands on the
// command topic (connect, armed, airborne), calls Trigger services (resume
// with nothing paused is refused; land; dump_log at the end), flies a goal of
// the execute_mission action to its result with feedback, and cancels a
// second goal. Prints one JSON object; exits 1 on any failure.
// Usage: node mission.mjs ws://127.0.0.1:9090 [/namespace]
import { Ros, Topic, Service, Action } from 'roslib';

const url = process.argv[2];
const ns = process.argv[3] ?? '/uav_mission_safety_manager';
const out = { states: [] };
const fail = (msg) => { console.error('mission.mjs: ' + msg); console.log(JSON.stringify(out)); process.exit(1); };
const deadline = setTimeout(() => fail('timed out'), 90_000);

const ros = new Ros({ url });
await new Promise((res, rej) => { ros.on('connection', res); ros.on('error', (e) => rej(new Error('connect: ' + e))); });
const p = (fn) => new Promise((res, rej) => fn(res, rej));
out.services = (await p((res, rej) => ros.getServices(res, rej))).filter((s) => s.startsWith(ns + '/'));

let last = null;
const waiters = new Set();
const status = new Topic({ ros, name: ns + '/status', messageType: 'std_msgs/msg/String' });
status.subscribe((m) => {
  last = JSON.parse(m.data);
  if (out.states[out.states.length - 1] !== last.state) out.states.push(last.state);
  for (const w of waiters) w();
});
const until = (what, pred) => new Promise((res) => {
  const timer = setTimeout(() => fail('waiting for ' + what + '; last status ' + JSON.stringify(last)), 60_000);
  const w = () => { if (last && pred(last)) { waiters.delete(w); clearTimeout(timer); res(last); } };
  waiters.add(w);
  w();
});
const settled = (state) => (s) => s.state === state && !s.command_pending;

const command = new Topic({ ros, name: ns + '/command', messageType: 'std_msgs/msg/String' });
const send = (ev) => command.publish({ data: JSON.stringify(ev) });
const trigger = (name) => p((res, rej) => new Service({ ros, name: ns + '/' + name, serviceType: 'std_srvs/srv/Trigger' })
  .callService({}, res, (e) => rej(new Error(name + ': ' + e))));

await until('the first status', () => true);
out.first = last.state;
send({ event: 'connect' });
await until('ARMING', settled('ARMING'));
send({ event: 'armed' });
await until('TAKEOFF', settled('TAKEOFF'));
send({ event: 'airborne' });
await until('EXECUTING', settled('EXECUTING'));
out.resumeNotPaused = await trigger('resume');

const action = new Action({ ros, name: ns + '/execute_mission', actionType: 'uav_mission_interfaces/action/ExecuteMission' });
const feedback = [];
out.result = await p((res, rej) => action.sendGoal(
  { waypoints: [{ x: 4, y: 0, z: -2, speed: 2 }, { x: 8, y: 0, z: -2, speed: 2 }, { x: 12, y: 0, z: -2, speed: 2 }] },
  res, (fb) => feedback.push(fb), (e) => rej(new Error('goal 1: ' + e))));
out.feedback = feedback;

// The second goal: cancel it once it is on its way.
out.cancel = await p((res) => {
  let id = null, sent = false;
  id = action.sendGoal({ waypoints: [{ x: 30, y: 0, z: -2, speed: 1 }, { x: 40, y: 0, z: -2 }] },
    (v) => res({ succeeded: v }),
    () => { if (!sent) { sent = true; action.cancelGoal(id); } },
    (e) => {
      const s = String(e), i = s.indexOf('{');
      res({ error: s, values: i >= 0 ? JSON.parse(s.slice(i)) : null });
    });
});
out.land = await trigger('land');
await until('LANDED', settled('LANDED'));
out.dumpLog = await trigger('dump_log');
clearTimeout(deadline);
status.unsubscribe();
ros.close();
console.log(JSON.stringify(out));
