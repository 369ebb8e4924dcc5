#!/usr/bin/env bash
# Makes the root file system of Neptune's container image (docs/DEPLOYMENT.md, Container image), which Jib
# then packs FROM scratch as one layer (no base image, so no registry is needed to build it):
#   /opt/java        a Java runtime made by jlink from the JDK's jmods (only the modules Neptune uses): the JDK
#                    Maven runs on (Java 17 in CI), or -Dimage.jdk=DIR
#   /bin/bash, /usr/bin/{env,dirname,readlink}   what bin/neptune needs, with the shared libraries they and
#                    the runtime link to (found with ldd), under /lib64 and /lib/<arch>
#   /etc/passwd, /etc/group   root and the user neptune (10001), who runs the node
#   /opt/neptune     the distribution, unpacked (bin/neptune, config/, lib/)
#   /proc /dev /sys /tmp /var/lib/neptune   empty mount points and the data volume
# Usage: make-root.sh OUTPUT_DIR DISTRIBUTION_TAR_GZ JAVA_HOME
set -euo pipefail

out=${1:?usage: make-root.sh OUTPUT_DIR DISTRIBUTION_TAR_GZ JAVA_HOME}
dist=${2:?usage: make-root.sh OUTPUT_DIR DISTRIBUTION_TAR_GZ JAVA_HOME}
jdk=${3:?usage: make-root.sh OUTPUT_DIR DISTRIBUTION_TAR_GZ JAVA_HOME}
modules=java.base,java.logging,java.sql,java.naming,java.management,jdk.management,java.desktop,jdk.unsupported,\
java.xml,java.scripting,jdk.net,java.transaction.xa,java.security.jgss,java.instrument,java.compiler,jdk.crypto.ec,\
jdk.zipfs,jdk.jfr,jdk.management.agent,jdk.jcmd,jdk.localedata

fail() { echo "make-root.sh: $*; build without the image with -Dimage.skip" >&2; exit 1; }
[ -f "$dist" ] || fail "no distribution tarball at $dist (the assembly builds it in the same package phase)"
[ -x "$jdk/bin/jlink" ] || fail "no jlink in $jdk/bin (the image needs a JDK, not a JRE)"
[ -f "$jdk/jmods/java.base.jmod" ] || fail "no jmods in $jdk/jmods (Debian: openjdk-17-jdk-headless has them)"
feature=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
[ "${feature:-0}" -ge 17 ] 2>/dev/null || fail "$jdk is Java ${feature:-unknown}, not 17 or later (choose one: -Dimage.jdk=DIR)"
command -v ldd >/dev/null || fail "no ldd on this machine (it finds the shared libraries to copy)"

rm -rf "$out"
mkdir -p "$out"/{bin,usr/bin,lib64,etc,opt/neptune,proc,dev,sys,tmp,var/lib/neptune}
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$out/opt/java"

cp /bin/bash "$out/bin/bash"
cp /usr/bin/env /usr/bin/dirname /usr/bin/readlink "$out/usr/bin/"
# Every library the programs and the runtime's own libraries link to, except the runtime's (already in /opt/java)
# and those only AWT, fonts, images and sound load (the node runs headless: no X11, freetype or ALSA in the image).
# glibc loads libdl, libpthread and librt by name at run time (dlopen), so they go in even if nothing links them.
mapfile -t binaries < <(find "$out/bin" "$out/usr/bin" "$out/opt/java/bin" "$out/opt/java/lib" -type f \
  \( -perm -u+x -o -name '*.so' \) ! -name 'libawt*' ! -name 'libjawt.so' ! -name 'libfontmanager.so' ! -name 'libjavajpeg.so' \
  ! -name 'liblcms.so' ! -name 'libsplashscreen.so' ! -name 'libjsound.so' ! -name 'libmlib_image.so' | sort)
libdir=$(dirname "$(ldd /bin/bash | awk '$1 ~ /^libc\.so/ {print $3}')")
mapfile -t libraries < <({ ldd "${binaries[@]}" 2>/dev/null || true; } \
  | awk -v java="$out/opt/java" '$2 == "=>" && $3 ~ /^\// && index($3, java) != 1 {print $3} $1 ~ /^\/lib64\// {print $1}' \
  | sort -u)
for lib in "${libraries[@]}" "$libdir"/libdl.so.2 "$libdir"/libpthread.so.0 "$libdir"/librt.so.1; do
  [ -e "$lib" ] || continue
  case $lib in
    /lib64/*) cp -L "$lib" "$out/lib64/" ;;
    *) mkdir -p "$out$(dirname "$lib")"; cp -L "$lib" "$out$(dirname "$lib")/" ;;
  esac
done

printf 'root:x:0:0:root:/root:/sbin/nologin\nneptune:x:10001:10001:neptune:/var/lib/neptune:/sbin/nologin\n' \
  > "$out/etc/passwd"
printf 'root:x:0:\nneptune:x:10001:\n' > "$out/etc/group"
printf 'hosts: files dns\n' > "$out/etc/nsswitch.conf"
tar -xzf "$dist" -C "$out/opt/neptune" --strip-components=1 --no-same-owner
