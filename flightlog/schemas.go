package flightlog

import (
	_ "embed"
	"encoding/json"
)

// foxgloveJSON holds the JSON Schemas of the foxglove.* messages written
// here exactly as @foxglove/schemas 2.1.0 publishes them (MIT licence,
// Foxglove Technologies), so that a strict consumer validates each message
// against the schema of its channel. interop/gen-schemas.mjs writes the
// file; interop's TestSchemasUpToDate checks it against the package.
//
//go:embed foxglove_schemas.json
var foxgloveJSON []byte

func init() {
	var fs map[string]json.RawMessage
	if err := json.Unmarshal(foxgloveJSON, &fs); err != nil {
		panic("flightlog: foxglove_schemas.json: " + err.Error())
	}
	for name, s := range fs {
		schemas[name] = string(s)
	}
}

// JSON Schemas of Shakedown's own telemetry messages.
const (
	timeSchema = `{"type":"object","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}}`
	vec3Schema = `{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}}`
)

var schemas = map[string]string{
	"shakedown.IMU": `{"title":"shakedown.IMU","type":"object","properties":{"timestamp":` + timeSchema +
		`,"accel":` + vec3Schema + `,"gyro":` + vec3Schema + `}}`,
	"shakedown.GNSS": `{"title":"shakedown.GNSS","type":"object","properties":{"timestamp":` + timeSchema +
		`,"fix_type":{"type":"integer"},"satellites":{"type":"integer"},"eph":{"type":"number"},"epv":{"type":"number"},"position":` + vec3Schema + `}}`,
	"shakedown.Battery": `{"title":"shakedown.Battery","type":"object","properties":{"timestamp":` + timeSchema +
		`,"voltage":{"type":"number"},"current":{"type":"number"},"remaining":{"type":"number"}}}`,
	"shakedown.Range": `{"title":"shakedown.Range","type":"object","properties":{"timestamp":` + timeSchema +
		`,"ranges":{"type":"array","items":{"type":["number","null"]}},"max":{"type":"number"},"min":{"type":["number","null"]}}}`,
	"shakedown.JointState": `{"title":"shakedown.JointState","type":"object","properties":{"timestamp":` + timeSchema +
		`,"wheel_rad_s":{"type":"array","items":{"type":"number"}},"wheel_rad":{"type":"array","items":{"type":"number"}},"blade_rad_s":{"type":"number"}}}`,
	"shakedown.Safety": `{"title":"shakedown.Safety","type":"object","properties":{"timestamp":` + timeSchema +
		`,"latched":{"type":"boolean"},"ring":{"type":"string"},"hold":{"type":"string"}}}`,
	"shakedown.DriveRequest": `{"title":"shakedown.DriveRequest","type":"object","properties":{"timestamp":` + timeSchema +
		`,"v":{"type":"number"},"w":{"type":"number"},"blade":{"type":"boolean"}}}`,
}
