#!/usr/bin/env bash
# Makes a small music library in DIR with ffmpeg: two albums mastered 10 LU apart (every format
# Library plays, tags, cover art), odd file names, a truncated file and a text file named .mp3.
#   make-library.sh DIR [SECONDS]
set -euo pipefail
dir="$1"; seconds="${2:-6}"
mkdir -p "$dir/Loud Band/Loud Album" "$dir/Quiet Band/Quiet Album" "$dir/Odd names" "$dir/Broken"
ff() { ffmpeg -v error -nostdin -y "$@"; }
ff -f lavfi -i "color=c=0xE8772E:s=96x96" -frames:v 1 "$dir/cover.png"

# tone FREQ VOLUME_DB -> lavfi input of a sine with some level movement
tone() { echo "sine=f=$1:r=48000:d=$seconds,volume=$2dB,aformat=channel_layouts=stereo"; }

# album ARTIST ALBUM GENRE VOLUME_DB: one track per format, track numbers and cover art
album() {
  local artist="$1" album="$2" genre="$3" volume="$4" folder="$dir/$1/$2" n=0
  for spec in "flac:550" "mp3:440" "opus:660" "ogg:770" "m4a:880" "wav:990"; do
    n=$((n + 1)); local ext="${spec%%:*}" freq="${spec##*:}"; local out="$folder/0$n Track $n.$ext"
    local tags=(-metadata "title=$album $n" -metadata "artist=$artist" -metadata "album=$album" -metadata "album_artist=$artist"
                -metadata "track=$n/6" -metadata "genre=$genre" -metadata "date=2024")
    case "$ext" in
      flac|mp3|m4a) ff -f lavfi -i "$(tone "$freq" "$volume")" -i "$dir/cover.png" -map 0 -map 1 -c:v copy -disposition:v attached_pic \
                      "${tags[@]}" $([ "$ext" = mp3 ] && echo "-id3v2_version 3") "$out" ;;
      opus) ff -f lavfi -i "$(tone "$freq" "$volume")" -c:a libopus "${tags[@]}" "$out" ;;
      ogg) ff -f lavfi -i "$(tone "$freq" "$volume")" -c:a libvorbis "${tags[@]}" "$out" ;;
      wav) ff -f lavfi -i "$(tone "$freq" "$volume")" "${tags[@]}" "$out" ;;
    esac
  done
}
album "Loud Band" "Loud Album" "Rock" 12
album "Quiet Band" "Quiet Album" "Jazz" 2

# Loud, then 20 dB quieter: normalising must not lift the quiet half.
mkdir -p "$dir/Dynamics"
ff -f lavfi -i "sine=f=550:r=48000:d=$seconds,volume=10dB,aformat=channel_layouts=stereo" \
   -f lavfi -i "sine=f=550:r=48000:d=$seconds,volume=-10dB,aformat=channel_layouts=stereo" \
   -filter_complex "[0][1]concat=n=2:v=0:a=1" -metadata "title=Loud then quiet" -metadata "artist=Dynamics" -metadata "album=Dynamics" \
   "$dir/Dynamics/loud then quiet.flac"
ff -f lavfi -i "$(tone 330 -10)" -metadata "title=Ünïcødé & spaces" -metadata "artist=Odd Artist" "$dir/Odd names/Ünïcødé & 'spaces'; [1].flac"
ff -f lavfi -i "$(tone 330 -10)" "$dir/Odd names/no tags at all.mp3"
ff -f lavfi -i "$(tone 330 -10)" "$dir/Broken/whole.flac"
head -c 300 "$dir/Broken/whole.flac" > "$dir/Broken/truncated.flac"
rm "$dir/Broken/whole.flac"
echo "this is a shopping list, not a song" > "$dir/Broken/not audio.mp3"
rm "$dir/cover.png"
