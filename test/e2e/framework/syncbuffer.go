package framework

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer a test reads while a process (or several
// goroutines) writes it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// WriteString appends v.
func (s *SyncBuffer) WriteString(v string) { _, _ = s.Write([]byte(v)) }

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
