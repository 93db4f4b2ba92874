package protocol

import "strconv"

// Nats-Msg-Id values. JetStream stores one message per id within a
// stream's dedup window, which is what makes a retried publish, a
// redelivered job or two workers answering the same job store one.

// JobMsgID is a job's: its submission id.
func JobMsgID(id string) string { return id }

// EventMsgID is a progress event's: "<id>:<attempt>:<seq>".
func EventMsgID(id string, attempt, seq int) string {
	return id + ":" + strconv.Itoa(attempt) + ":" + strconv.Itoa(seq)
}

// ResultMsgID is the final result's: "<id>:result".
func ResultMsgID(id string) string { return id + ":result" }

// FinalMsgID is the final event's: "<id>:final".
func FinalMsgID(id string) string { return id + ":final" }

// DeadLetterMsgID is a dead letter's: "deadletter:<stream seq>:<stored
// time in ns>", the job's place in the jobs stream.
func DeadLetterMsgID(seq uint64, storedNs int64) string {
	return "deadletter:" + strconv.FormatUint(seq, 10) + ":" + strconv.FormatInt(storedNs, 10)
}
