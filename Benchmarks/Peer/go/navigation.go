package main

import (
	"context"
	"encoding/json"

	"github.com/varlink/go/varlink"
)

// MARK: - Service

// navigationInterface serves io.navhost.Navigation's Send, the one method the peer implements; every other method of
// the interface is answered MethodNotImplemented. It is written by hand against the library's dispatcher, as the
// code varlink-go-interface-generator makes would dispatch it.
type navigationInterface struct {
	description string
	sessions    map[string]*session
}

func (n *navigationInterface) VarlinkGetName() string        { return interfaceName }
func (n *navigationInterface) VarlinkGetDescription() string { return n.description }

func (n *navigationInterface) VarlinkDispatch(ctx context.Context, call varlink.Call, method string) error {
	if method != "Send" {
		return call.ReplyMethodNotImplemented(ctx, interfaceName+"."+method)
	}
	var in struct {
		Session   *string                    `json:"session"`
		Screen    *string                    `json:"screen"`
		Intent    string                     `json:"intent"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if err := call.GetParameters(&in); err != nil {
		return call.ReplyInvalidParameter(ctx, "parameters")
	}
	name := "main"
	if in.Session != nil {
		name = *in.Session
	}
	found, ok := n.sessions[name]
	if !ok {
		return replyError(ctx, call, "SessionNotFound", map[string]string{"session": name})
	}
	if in.Screen != nil && *in.Screen != screenID {
		return replyError(ctx, call, "ScreenNotFound", map[string]string{"screen": *in.Screen})
	}
	if in.Intent != "onChangedFilter" {
		return replyError(ctx, call, "IntentNotFound", map[string]string{"intent": in.Intent})
	}
	// A null text is no text, as the Python peer reads it; navhostd refuses both.
	var text *string
	raw, present := in.Arguments["text"]
	if present && json.Unmarshal(raw, &text) != nil {
		return replyError(ctx, call, "InvalidIntentArguments",
			map[string]string{"intent": in.Intent, "reason": "expected a string (at " + in.Intent + ".text)"})
	}
	if text == nil {
		return replyError(ctx, call, "InvalidIntentArguments",
			map[string]string{"intent": in.Intent, "reason": `missing member "text" (at ` + in.Intent + ".text)"})
	}
	reply, err := found.filterByName(*text)
	if err != nil {
		return replyError(ctx, call, "StorageFailed", map[string]string{"reason": err.Error()})
	}
	return call.Reply(ctx, &reply)
}

func replyError(ctx context.Context, call varlink.Call, name string, parameters any) error {
	return call.ReplyError(ctx, interfaceName+"."+name, parameters)
}
