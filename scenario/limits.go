package scenario

// Limits on what the codecs accept, one per concept, shared by every
// command that reads a case study (fly, run, generate, score, campaign):
// a plan that flies in one is never refused by another.
const (
	// MaxFileBytes bounds every file a case study is read from: the YAML,
	// its .plan, params and commands files. The competition's are under
	// 4 KB; 4 MiB holds a plan of MaxItems items many times over.
	MaxFileBytes = 4 << 20
	// MaxYAMLBytes bounds the case-study YAML itself: the YAML parser
	// takes a few hundred bytes of memory per token, so 256 KiB (a
	// thousand obstacles in block style) keeps a hostile file to tens of
	// MB. The competition's are under 2 KB.
	MaxYAMLBytes = 256 << 10
	// MaxItems is the most positional items (take-off, waypoints, land) a
	// plan may hold. The competition's plans hold under 10; 1000 is above
	// any hand-written or generated plan Shakedown has met.
	MaxItems = 1000
	// MaxBoxes is the most obstacles a case study may hold, whatever the
	// edition (whose rules allow 3 or 4): past it the parser stops.
	MaxBoxes = 1000
	// MaxCommands is the most Aerialist commands a case study may hold.
	MaxCommands = 10000
	// MaxParams is the most PX4 parameters a case study may set (PX4
	// has about 1500 in all).
	MaxParams = 2000
	// MaxAltitudeM bounds a plan item's altitude above home, m: 1 km,
	// far above the competition's 10 m and any multirotor test flight.
	MaxAltitudeM = 1000.0
	// MinLandAltitudeM is the lowest altitude a landing may have, m above
	// home: a landing spot may lie below the take-off (a slope), by at
	// most 100 m on any test field. Take-off and waypoints must be above
	// home.
	MinLandAltitudeM = -100.0
)
