package flightlog

// JSON Schemas of the messages, trimmed versions of Foxglove's own (same
// names and field names, so the panels recognise them) and Shakedown's
// telemetry types.
const (
	timeSchema = `{"type":"object","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}}`
	vec3Schema = `{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}}`
	quatSchema = `{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"},"w":{"type":"number"}}}`
	poseSchema = `{"type":"object","properties":{"position":` + vec3Schema + `,"orientation":` + quatSchema + `}}`
)

var schemas = map[string]string{
	"foxglove.PoseInFrame": `{"title":"foxglove.PoseInFrame","type":"object","properties":{"timestamp":` + timeSchema +
		`,"frame_id":{"type":"string"},"pose":` + poseSchema + `}}`,
	"foxglove.PosesInFrame": `{"title":"foxglove.PosesInFrame","type":"object","properties":{"timestamp":` + timeSchema +
		`,"frame_id":{"type":"string"},"poses":{"type":"array","items":` + poseSchema + `}}}`,
	"foxglove.FrameTransform": `{"title":"foxglove.FrameTransform","type":"object","properties":{"timestamp":` + timeSchema +
		`,"parent_frame_id":{"type":"string"},"child_frame_id":{"type":"string"},"translation":` + vec3Schema +
		`,"rotation":` + quatSchema + `}}`,
	"foxglove.SceneUpdate": `{"title":"foxglove.SceneUpdate","type":"object","properties":{"deletions":{"type":"array","items":{"type":"object"}},` +
		`"entities":{"type":"array","items":{"type":"object","properties":{"timestamp":` + timeSchema +
		`,"frame_id":{"type":"string"},"id":{"type":"string"},"lifetime":` + timeSchema + `,"frame_locked":{"type":"boolean"},` +
		`"cubes":{"type":"array","items":{"type":"object","properties":{"pose":` + poseSchema + `,"size":` + vec3Schema +
		`,"color":{"type":"object","properties":{"r":{"type":"number"},"g":{"type":"number"},"b":{"type":"number"},"a":{"type":"number"}}}}}}}}}}}`,
	"foxglove.Log": `{"title":"foxglove.Log","type":"object","properties":{"timestamp":` + timeSchema +
		`,"level":{"type":"integer","description":"0 unknown, 1 debug, 2 info, 3 warning, 4 error, 5 fatal"},` +
		`"message":{"type":"string"},"name":{"type":"string"},"file":{"type":"string"},"line":{"type":"integer","minimum":0}}}`,
	"foxglove.LocationFix": `{"title":"foxglove.LocationFix","type":"object","properties":{"timestamp":` + timeSchema +
		`,"frame_id":{"type":"string"},"latitude":{"type":"number"},"longitude":{"type":"number"},"altitude":{"type":"number"},` +
		`"status":{"type":"integer"},"position_covariance":{"type":"array","items":{"type":"number"},"minItems":9,"maxItems":9},` +
		`"position_covariance_type":{"type":"integer"}}}`,
	"shakedown.IMU": `{"title":"shakedown.IMU","type":"object","properties":{"timestamp":` + timeSchema +
		`,"accel":` + vec3Schema + `,"gyro":` + vec3Schema + `}}`,
	"shakedown.GNSS": `{"title":"shakedown.GNSS","type":"object","properties":{"timestamp":` + timeSchema +
		`,"fix_type":{"type":"integer"},"satellites":{"type":"integer"},"eph":{"type":"number"},"epv":{"type":"number"},"position":` + vec3Schema + `}}`,
	"shakedown.Battery": `{"title":"shakedown.Battery","type":"object","properties":{"timestamp":` + timeSchema +
		`,"voltage":{"type":"number"},"current":{"type":"number"},"remaining":{"type":"number"}}}`,
	"shakedown.Range": `{"title":"shakedown.Range","type":"object","properties":{"timestamp":` + timeSchema +
		`,"ranges":{"type":"array","items":{"type":["number","null"]}},"max":{"type":"number"},"min":{"type":["number","null"]}}}`,
}
