package client

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

// CommandBody turns an argument of "mission send" into a command body and
// checks it locally: an event name without fields, @FILE, - (stdin), or
// the JSON itself.
func CommandBody(arg string, stdin io.Reader) ([]byte, error) {
	var body []byte
	switch {
	case arg == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, server.DefaultMaxBody+1))
		if err != nil {
			return nil, err
		}
		body = b
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, err
		}
		body = b
	case slices.Contains(mission.CommandNames, arg):
		if arg == "goto" || arg == "mission" {
			return nil, fmt.Errorf("%s needs its fields: give the JSON, e.g. '{\"event\":\"goto\",\"x\":4,\"y\":0,\"z\":-2}'", arg)
		}
		body = []byte(`{"event":"` + arg + `"}`)
	case strings.Trim(arg, "abcdefghijklmnopqrstuvwxyz_-") == "":
		return nil, fmt.Errorf("unknown event %q: want one of %s, or a JSON command", arg, strings.Join(mission.CommandNames, ", "))
	default:
		body = []byte(arg)
	}
	if len(body) > server.DefaultMaxBody {
		return nil, fmt.Errorf("the command is larger than the daemon's limit of %d bytes", server.DefaultMaxBody)
	}
	if _, err := mission.ParseCommand(body); err != nil {
		return nil, err
	}
	return body, nil
}

// GoalBody builds the body of POST /v1/goals from the arguments of "mission
// send goal": one JSON object, @FILE or - (standard input), or points
// "x,y,z[,speed]". It is checked locally (at most 100 points, numbers,
// speed > 0).
func GoalBody(args []string, stdin io.Reader) ([]byte, error) {
	var body []byte
	switch a := args[0]; {
	case len(args) == 1 && a == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, server.DefaultMaxBody+1))
		if err != nil {
			return nil, err
		}
		body = b
	case len(args) == 1 && strings.HasPrefix(a, "@"):
		b, err := os.ReadFile(a[1:])
		if err != nil {
			return nil, err
		}
		body = b
	case len(args) == 1 && strings.HasPrefix(strings.TrimSpace(a), "{"):
		body = []byte(a)
	default:
		wps := make([]string, len(args))
		for i, p := range args {
			f := strings.Split(p, ",")
			if len(f) != 3 && len(f) != 4 {
				return nil, fmt.Errorf("point %d %q: want x,y,z or x,y,z,speed (NED metres, m/s)", i+1, p)
			}
			for j, v := range f {
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					return nil, fmt.Errorf("point %d %q: %q is not a number", i+1, p, v)
				}
				f[j] = strings.TrimSpace(v)
			}
			w := fmt.Sprintf(`{"x":%s,"y":%s,"z":%s`, f[0], f[1], f[2])
			if len(f) == 4 {
				w += `,"speed":` + f[3]
			}
			wps[i] = w + "}"
		}
		body = []byte(`{"waypoints":[` + strings.Join(wps, ",") + `]}`)
	}
	if len(body) > server.DefaultMaxBody {
		return nil, fmt.Errorf("the goal is larger than the daemon's limit of %d bytes", server.DefaultMaxBody)
	}
	if _, err := mission.ParseGoal(body); err != nil {
		return nil, err
	}
	return body, nil
}
