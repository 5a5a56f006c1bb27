package apiclient

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// Version is what the plugin reads of the server's /version.
type Version struct {
	GitVersion string `json:"gitVersion"`
	Minor      string `json:"minor"`
}

// ServerVersion reads /version as every other get (Get: no retries, the
// error with the server's own words): the one reader of /version, for
// the version command and the server's facts alike.
func (c *Client) ServerVersion(ctx context.Context) (Version, error) {
	rc, err := c.Get(ctx, "/version", nil, "application/json")
	if err != nil {
		return Version{}, err
	}
	defer rc.Close()
	// Within the cap of /version (LimitVersion); a break of the
	// connection is the transport's BodyCutError.
	body, err := io.ReadAll(rc)
	if err != nil {
		return Version{}, capError(err)
	}
	return ParseVersion(body)
}

// ParseVersion reads a /version body. One without a gitVersion that is a
// string (an empty object, numbers where the API has strings) is no
// API server's: an *UnreadableAnswerError, as one that is not JSON is,
// never a version left blank with nothing said (adversary try 19 #13:
// "{}" was exit 0 and no server line, "[1]" exit 1).
func ParseVersion(body []byte) (Version, error) {
	var v Version
	if err := json.Unmarshal(body, &v); err != nil {
		return Version{}, Undecodable("cannot decode /version", err)
	}
	if strings.TrimSpace(v.GitVersion) == "" {
		return Version{}, &UnreadableAnswerError{What: "/version has no gitVersion, which every API server's has"}
	}
	// A version is a few dozen bytes; the server's value goes into every
	// output that names the server (version, list's Server line, probe's
	// and top's notes, the facts cache) as it is kept here: bounded, with
	// the mark of its length (adversary try 20 #14: a 60 KB gitVersion
	// printed whole by version).
	v.GitVersion, v.Minor = text.Echo(v.GitVersion), text.Echo(v.Minor)
	return v, nil
}
