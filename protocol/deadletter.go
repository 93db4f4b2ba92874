package protocol

import "time"

// DeadLetter is the answer to a job that names no id a result could go
// under (docs/protocol.md, "Dead letters").
type DeadLetter struct {
	V            int       `json:"v"`
	Stream       string    `json:"stream"`
	StreamSeq    uint64    `json:"stream_seq"`
	Subject      string    `json:"subject"`
	Stored       time.Time `json:"stored"`
	MsgID        string    `json:"msg_id"`        // the Nats-Msg-Id header as sent, truncated ("" when absent)
	SubmissionID string    `json:"submission_id"` // as read from the job, truncated ("" when unreadable)
	Verdict      Verdict   `json:"verdict"`
	Reason       string    `json:"reason"`
	Worker       string    `json:"worker"`
	Time         time.Time `json:"time"`
	PayloadBytes int       `json:"payload_bytes"`
	PayloadHead  string    `json:"payload_head"` // the first 512 bytes, invalid UTF-8 replaced
}
