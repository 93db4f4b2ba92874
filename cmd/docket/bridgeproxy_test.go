package main

import "testing"

// TestBridgeProxySettingsRefusal: a bad trusted proxy or forwarding
// header stops docket bridge before it connects, naming the setting.
func TestBridgeProxySettingsRefusal(t *testing.T) {
	bin := docketBinary(t)
	dead := "DOCKET_NATS_URL=nats://127.0.0.1:" + freePort(t)
	tok := "DOCKET_BRIDGE_TOKEN=t"
	for _, c := range []struct {
		env  []string
		code int
		want string
	}{
		{[]string{"DOCKET_BRIDGE_TRUSTED_PROXIES=10.0.0.0/8,proxy.example"}, exitUsage, `DOCKET_BRIDGE_TRUSTED_PROXIES: trusted proxy "proxy.example": not an address or CIDR`},
		{[]string{"DOCKET_BRIDGE_FORWARDED_HEADER=X-Real-IP"}, exitUsage, `DOCKET_BRIDGE_FORWARDED_HEADER: forwarded header "X-Real-IP"`},
		{[]string{"DOCKET_BRIDGE_TRUSTED_PROXIES=10.0.0.0/8,::1", "DOCKET_BRIDGE_FORWARDED_HEADER=Forwarded"}, exitSystem, "no NATS"}, // past the checks
	} {
		expectExit(t, bin, []string{"bridge"}, append([]string{dead, tok}, c.env...), c.code, c.want)
	}
}
