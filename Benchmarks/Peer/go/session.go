package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// MARK: - Sessions

// session is one session: its catalog screen's filter and state, its revision, and the lock its Sends take.
type session struct {
	name     string
	products []product
	path     string
	lock     sync.Mutex
	revision int64
	filter   string
	state    catalogState
}

// record is what a session's file holds: its revision, and its stack with the filter the screen restores (what
// navhostd keeps of a session, though navhostd keeps it in a journal, not in a file replaced per change).
type record struct {
	Session  string        `json:"session"`
	Revision int64         `json:"revision"`
	Stack    []recordEntry `json:"stack"`
}

type recordEntry struct {
	ID           string            `json:"id"`
	Route        string            `json:"route"`
	Parameters   map[string]string `json:"parameters"`
	Presentation string            `json:"presentation"`
	Restorable   struct {
		Filter string `json:"filter"`
	} `json:"restorable"`
}

// openSession opens a session at revision 2 (its catalog pushed, then shown, as navhostd numbers it), or at the
// revision and filter of its file in stateDir when there is one.
func openSession(name string, products []product, stateDir string) (*session, error) {
	s := &session{name: name, products: products, revision: 2}
	if stateDir != "" {
		s.path = filepath.Join(stateDir, "sessions", name+".json")
		text, err := os.ReadFile(s.path)
		switch {
		case err == nil:
			var saved record
			if err := json.Unmarshal(text, &saved); err != nil {
				return nil, err
			}
			if len(saved.Stack) == 0 {
				return nil, errors.New("a session file without a screen")
			}
			s.revision, s.filter = saved.Revision, saved.Stack[0].Restorable.Filter
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
	}
	s.state = stateOf(products, s.filter)
	return s, nil
}

// sendReply is navhostd's reply to a Send: the session's revision and the screen the intent went to.
type sendReply struct {
	Revision int64         `json:"revision"`
	Screen   screenPayload `json:"screen"`
}

type screenPayload struct {
	ID           string            `json:"id"`
	Route        string            `json:"route"`
	Parameters   map[string]string `json:"parameters"`
	Presentation string            `json:"presentation"`
	State        catalogState      `json:"state"`
}

// filterByName applies the filter and returns the reply; a changed state gets the next revision and is saved first.
func (s *session) filterByName(text string) (sendReply, error) {
	s.lock.Lock()
	defer s.lock.Unlock()
	state := stateOf(s.products, text)
	if !sameState(state, s.state) {
		revision := s.revision + 1
		if err := s.save(revision, text); err != nil {
			return sendReply{}, err
		}
		s.revision, s.filter, s.state = revision, text, state
	}
	return sendReply{
		Revision: s.revision,
		Screen: screenPayload{
			ID: screenID, Route: route, Parameters: map[string]string{}, Presentation: "push", State: s.state,
		},
	}, nil
}

// save replaces the session's file durably: a temporary file, fsync, rename, fsync of the folder.
func (s *session) save(revision int64, text string) error {
	if s.path == "" {
		return nil
	}
	entry := recordEntry{ID: screenID, Route: route, Parameters: map[string]string{}, Presentation: "push"}
	entry.Restorable.Filter = text
	encoded, err := json.Marshal(record{Session: s.name, Revision: revision, Stack: []recordEntry{entry}})
	if err != nil {
		return err
	}
	temporary := s.path + ".tmp"
	file, err := os.OpenFile(temporary, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := file.Write(encoded); err != nil {
		file.Close()
		return err
	}
	if err := file.Sync(); err != nil {
		file.Close()
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	if err := os.Rename(temporary, s.path); err != nil {
		return err
	}
	folder, err := os.Open(filepath.Dir(s.path))
	if err != nil {
		return err
	}
	defer folder.Close()
	return folder.Sync()
}
