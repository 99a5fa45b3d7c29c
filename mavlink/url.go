package mavlink

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/bluenviron/gomavlib/v3"
)

// Direction is the side a URL without an explicit one takes.
type Direction int

// Directions of a link.
const (
	Outgoing Direction = iota // send to the address (UDP client, TCP client)
	Incoming                  // bind the address (UDP server, TCP server)
)

// ParseURL turns a connection URL into a gomavlib endpoint:
//
//	udp://host:port     dir decides (Outgoing or Incoming); udp://:port always listens,
//	                    as MAVSDK's udp://:14540 does
//	udpin://host:port   listen (UDP server)
//	udpout://host:port  send to (UDP client)
//	tcp://host:port     dir decides (TCP client or server)
//	tcpin://host:port   TCP server;  tcpout://host:port  TCP client
//	serial:///dev/ttyUSB0?baud=57600   serial port (default 57600 baud)
//
// A port must be 1–65535. The error wraps ErrBadURL and names the URL.
func ParseURL(s string, dir Direction) (gomavlib.EndpointConf, error) {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadURL, s, why) }
	u, err := url.Parse(s)
	if err != nil {
		return nil, bad(err.Error())
	}
	if u.Scheme == "serial" {
		dev := u.Path
		if dev == "" {
			dev = u.Opaque
		}
		if dev == "" {
			return nil, bad("no device (want serial:///dev/ttyUSB0?baud=57600)")
		}
		baud := 57600
		if b := u.Query().Get("baud"); b != "" {
			n, err := strconv.Atoi(b)
			if err != nil || n <= 0 {
				return nil, bad("baud " + b + " is not a positive integer")
			}
			baud = n
		}
		return gomavlib.EndpointSerial{Device: dev, Baud: baud}, nil
	}
	if u.Opaque != "" || u.Path != "" && u.Path != "/" || u.User != nil {
		return nil, bad("want scheme://host:port")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return nil, bad(err.Error())
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return nil, bad("port " + port + " out of 1–65535")
	}
	addr := net.JoinHostPort(host, port)
	switch strings.ToLower(u.Scheme) {
	case "udp":
		if host == "" || dir == Incoming {
			return gomavlib.EndpointUDPServer{Address: addr}, nil
		}
		return gomavlib.EndpointUDPClient{Address: addr}, nil
	case "udpin":
		return gomavlib.EndpointUDPServer{Address: addr}, nil
	case "udpout":
		if host == "" {
			return nil, bad("udpout needs a host")
		}
		return gomavlib.EndpointUDPClient{Address: addr}, nil
	case "tcp":
		if host == "" || dir == Incoming {
			return gomavlib.EndpointTCPServer{Address: addr}, nil
		}
		return gomavlib.EndpointTCPClient{Address: addr}, nil
	case "tcpin":
		return gomavlib.EndpointTCPServer{Address: addr}, nil
	case "tcpout":
		if host == "" {
			return nil, bad("tcpout needs a host")
		}
		return gomavlib.EndpointTCPClient{Address: addr}, nil
	}
	return nil, bad("scheme " + u.Scheme + ": want udp, udpin, udpout, tcp, tcpin, tcpout or serial")
}
