package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// gitignore keeps what .raymond/ holds out of git but the config: the
// state files and transcripts carry prompts and answers, and serve.token
// the daemon's key.
const gitignore = `# Written by raymond: runs' state, transcripts (prompts and answers) and the
# daemon's token stay out of git; the config can be shared.
*
!.gitignore
!config.toml
`

// GitignorePath is where the .gitignore of dir's .raymond folder lives.
func GitignorePath(dir string) string { return filepath.Join(dir, ".raymond", ".gitignore") }

// WriteGitignore writes .raymond/.gitignore in dir, whose .raymond folder
// exists, unless it exists already: a file the user changed is theirs. It
// says whether it wrote the file.
func WriteGitignore(dir string) (bool, error) {
	f, err := os.OpenFile(GitignorePath(dir), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.WriteString(gitignore)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return false, err
	}
	return true, nil
}
