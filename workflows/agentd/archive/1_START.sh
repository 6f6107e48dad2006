# The whole archive workflow: check the phase, move the change folder into
# the archive, set phase: archived. The archive is archive/ beside the
# changes/ folder that holds the change (changes/x goes to archive/x), or, for
# a change not in a folder named changes, archive/ inside its parent folder.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/agentd.sh"

dir=$(trim "${RAYMOND_INPUT:-}")
dir=${dir%/}
dir=${dir#./}
check_change_path "$dir"
id=$(change_id "$dir")
parent=$(dirname "$dir")
if [ "$(basename "$parent")" = changes ]; then
  archive=$(dirname "$parent")/archive
else
  archive=$parent/archive
fi
archive=${archive#./}
dest=$archive/$id

if [ ! -d "$dir" ]; then
  # Moved already: an earlier run archived it, or was stopped between the
  # move and the phase.
  if [ -d "$dest" ]; then
    if [ "$(phase "$dest")" != archived ]; then
      set_phase "$dest" archived
      say "archive $dir: found moved to $dest; phase archived"
      printf '<result>%s</result>\n' "$dir is archived at $dest; phase archived."
    else
      printf '<result>%s</result>\n' "$dir is archived already, at $dest (phase archived); nothing to do."
    fi
    exit 0
  fi
  die "$dir is not a folder; give the folder of a change, like changes/add-login"
fi
remember_change "$dir"
p=$(phase "$dir")
case "$p" in
  complete) ;;
  none) die "$dir has no STATE.yaml; archive needs phase complete, so plan it (plan) and implement it (impl) first" ;;
  archived) die "$dir is in phase archived but was never moved; move it to $dest yourself" ;;
  *) die "$dir is in phase $p; archive needs phase complete (a change the review approved: run impl on it first)" ;;
esac
[ ! -e "$dest" ] || die "$dest exists already; move it away (or rename $dir) and run archive again"
mkdir -p "$archive"
mv "$dir" "$dest"
set_phase "$dest" archived
say "archive $dir: moved to $dest, phase archived"
printf '<result>%s</result>\n' "$dir is archived at $dest; phase archived."
