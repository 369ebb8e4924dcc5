/*
 * crashfs: an LD_PRELOAD shim that records, for every file and directory under one root, what a
 * machine crash would take back: the bytes written since the file's last fsync, and the directory
 * entries created, removed or renamed since the directory's last fsync. CrashFs.cut (Java) then
 * rewinds the tree to exactly its last-synced image once the process is dead. See
 * io.neptune.server.crashfs.CrashFs for the model and docs/RELIABILITY.md ("Machine crashes").
 *
 * Environment: CRASHFS_ROOT (the tree to watch; must exist) and CRASHFS_STATE (where the journals
 * go; must exist, on the same file system, outside the root). CRASHFS_TRACE=1 prints each call the
 * shim handles to stderr. Without CRASHFS_ROOT the shim only forwards calls.
 *
 * State, all under CRASHFS_STATE (little-endian, written before the change it can undo):
 *   lock            a POSIX record lock held while a process uses the root
 *   data/<dev>-<ino> "CFSDATA1" | synced size u64 | entries (offset u64 | length u64 | old bytes)
 *   dirops          records: type u8 | dir dev u64 | dir ino u64 | fields (strings: length u32 | bytes)
 *                   'C' path: created   'M' path: made a directory   'D' path: removed a directory
 *                   'U' path, trash: removed (moved to trash/)   'S': the directory was fsynced
 *                   'R' dst dir dev u64, dst dir ino u64, moved inode u64, src path, dst path,
 *                       trash of the replaced file or ""
 *   trash/          files removed or replaced since the last cut (so a cut can bring them back)
 *   TAINTED         calls the model does not cover (writable shared mmap, sync, renamed directories)
 *
 * Build: gcc -shared -fPIC -O2 -U_FORTIFY_SOURCE -o libcrashfs.so crashfs.c -ldl -lpthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define JOURNAL_HEADER 16
#define BUCKETS 4096

typedef struct inode {
    dev_t dev;
    ino_t ino;
    int loaded;       /* journal open and synced size known */
    int journal;      /* fd of data/<dev>-<ino> */
    uint64_t synced;  /* size at the last fsync */
    uint64_t end;     /* journal length */
    int sync_writes;  /* opened with O_SYNC/O_DSYNC: each write counts as written and fsynced */
    struct inode *next;
} inode_t;

static int enabled;
static int tracing;
static char root[PATH_MAX];
static size_t root_len;
static dev_t root_dev;
static char state[PATH_MAX];
static int dirops = -1;
static unsigned long trash_seq;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static inode_t *table[BUCKETS];

/* ------------------------------------------------------------------ the real functions */

#define REAL(ret, name, ...) \
    static ret (*real_##name)(__VA_ARGS__); \
    static ret (*get_##name(void))(__VA_ARGS__) { \
        if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name); \
        return real_##name; \
    }

REAL(int, open, const char *, int, ...)
REAL(int, open64, const char *, int, ...)
REAL(int, openat, int, const char *, int, ...)
REAL(int, openat64, int, const char *, int, ...)
REAL(ssize_t, write, int, const void *, size_t)
REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
REAL(ssize_t, pwrite64, int, const void *, size_t, off64_t)
REAL(ssize_t, writev, int, const struct iovec *, int)
REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t)
REAL(ssize_t, pwritev64, int, const struct iovec *, int, off64_t)
REAL(int, ftruncate, int, off_t)
REAL(int, ftruncate64, int, off64_t)
REAL(int, truncate, const char *, off_t)
REAL(int, truncate64, const char *, off64_t)
REAL(int, fsync, int)
REAL(int, fdatasync, int)
REAL(void, sync, void)
REAL(int, syncfs, int)
REAL(int, rename, const char *, const char *)
REAL(int, renameat, int, const char *, int, const char *)
REAL(int, renameat2, int, const char *, int, const char *, unsigned int)
REAL(int, unlink, const char *)
REAL(int, unlinkat, int, const char *, int)
REAL(int, remove, const char *)
REAL(int, rmdir, const char *)
REAL(int, mkdir, const char *, mode_t)
REAL(int, mkdirat, int, const char *, mode_t)
REAL(int, link, const char *, const char *)
REAL(int, linkat, int, const char *, int, const char *, int)
REAL(int, symlink, const char *, const char *)
REAL(int, symlinkat, const char *, int, const char *)
REAL(void *, mmap, void *, size_t, int, int, int, off_t)
REAL(void *, mmap64, void *, size_t, int, int, int, off64_t)
REAL(ssize_t, sendfile, int, int, off_t *, size_t)
REAL(ssize_t, sendfile64, int, int, off64_t *, size_t)

/* The shim's own file I/O goes straight to the kernel calls it never changes. */
static int sys_open(const char *path, int flags, mode_t mode) {
    return get_open()(path, flags | O_CLOEXEC, mode);
}

static void die(const char *what) {
    char message[PATH_MAX + 256];
    int n = snprintf(message, sizeof message, "crashfs: %s: %s (the crash model is now wrong; stopping)\n", what,
                     strerror(errno));
    if (n > 0) {
        ssize_t ignored = get_write()(2, message, (size_t) n);
        (void) ignored;
    }
    abort();
}

static void trace(const char *format, ...) {
    if (!tracing) return;
    char message[PATH_MAX * 2 + 128];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(message, sizeof message - 1, format, args);
    va_end(args);
    if (n > 0) {
        if ((size_t) n > sizeof message - 2) n = sizeof message - 2;
        message[n++] = '\n';
        ssize_t ignored = get_write()(2, message, (size_t) n);
        (void) ignored;
    }
}

static void write_all(int fd, const void *buffer, size_t length, uint64_t offset) {
    const char *p = buffer;
    while (length > 0) {
        ssize_t n = get_pwrite64()(fd, p, length, (off64_t) offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("cannot write a journal");
        p += n;
        length -= (size_t) n;
        offset += (uint64_t) n;
    }
}

static void taint(const char *what, const char *detail) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/TAINTED", state);
    int fd = sys_open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        char line[PATH_MAX + 256];
        int n = snprintf(line, sizeof line, "%s: %s\n", what, detail);
        if (n > 0) {
            ssize_t ignored = get_write()(fd, line, (size_t) n);
            (void) ignored;
        }
        close(fd);
    }
    trace("crashfs: not modelled: %s: %s", what, detail);
}

/* ------------------------------------------------------------------ setup */

__attribute__((constructor)) static void init(void) {
    const char *r = getenv("CRASHFS_ROOT");
    const char *s = getenv("CRASHFS_STATE");
    const char *t = getenv("CRASHFS_TRACE");
    tracing = t != NULL && strcmp(t, "1") == 0;
    if (r == NULL || *r == '\0') return;
    if (s == NULL || realpath(r, root) == NULL || realpath(s, state) == NULL) {
        die("CRASHFS_ROOT and CRASHFS_STATE must name existing directories");
    }
    root_len = strlen(root);
    struct stat rs, ss;
    if (stat(root, &rs) != 0 || stat(state, &ss) != 0) die("cannot stat CRASHFS_ROOT or CRASHFS_STATE");
    if (rs.st_dev != ss.st_dev) {
        errno = EXDEV;
        die("CRASHFS_STATE must be on the same file system as CRASHFS_ROOT");
    }
    if (strncmp(state, root, root_len) == 0 && (state[root_len] == '/' || state[root_len] == '\0')) {
        errno = EINVAL;
        die("CRASHFS_STATE must be outside CRASHFS_ROOT");
    }
    root_dev = rs.st_dev;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/lock", state);
    int lock = sys_open(path, O_RDWR | O_CREAT, 0644);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (lock < 0 || fcntl(lock, F_SETLK, &fl) != 0) {
        /* another process (a parent that forked us, or a second node on one root): leave it alone */
        trace("crashfs: %s is in use by another process; pid %d is not tracked", state, (int) getpid());
        if (lock >= 0) close(lock);
        return;
    }
    snprintf(path, sizeof path, "%s/data", state);
    get_mkdir()(path, 0755);
    snprintf(path, sizeof path, "%s/trash", state);
    get_mkdir()(path, 0755);
    snprintf(path, sizeof path, "%s/dirops", state);
    dirops = sys_open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (dirops < 0) die("cannot open the directory journal");
    trash_seq = (unsigned long) time(NULL) * 1000000UL;
    enabled = 1;
    trace("crashfs: pid %d tracks %s (state in %s)", (int) getpid(), root, state);
}

/* ------------------------------------------------------------------ paths */

/*
 * Resolves (dirfd, path) to the canonical absolute path of its parent plus its last component, in
 * out; returns the offset in out of the part below the root (the relative path; "" for the root
 * itself), or -1 if the path is outside the root or cannot be resolved. The last component is not
 * followed.
 */
static int resolve(int dirfd, const char *path, char *out) {
    if (!enabled || path == NULL || *path == '\0') return -1;
    char absolute[PATH_MAX * 2];
    if (path[0] == '/') {
        if (strlen(path) >= sizeof absolute) return -1;
        strcpy(absolute, path);
    } else {
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (getcwd(base, sizeof base) == NULL) return -1;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            ssize_t n = readlink(link, base, sizeof base - 1);
            if (n <= 0) return -1;
            base[n] = '\0';
        }
        if (snprintf(absolute, sizeof absolute, "%s/%s", base, path) >= (int) sizeof absolute) return -1;
    }
    size_t length = strlen(absolute);
    while (length > 1 && absolute[length - 1] == '/') absolute[--length] = '\0';
    char *slash = strrchr(absolute, '/');
    const char *name = slash + 1;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        char canonical[PATH_MAX];   /* "dir/." names an existing directory: resolve it whole */
        if (realpath(absolute, canonical) == NULL) return -1;
        strcpy(absolute, canonical);
        slash = strrchr(absolute, '/');
        name = slash + 1;
    }
    if (*name == '\0') return -1;
    char parent[PATH_MAX];
    if (slash == absolute) {
        strcpy(parent, "/");
    } else {
        *slash = '\0';
        if (realpath(absolute, parent) == NULL) return -1;
    }
    if (snprintf(out, PATH_MAX, "%s%s%s", parent, strcmp(parent, "/") == 0 ? "" : "/", name) >= PATH_MAX) return -1;
    if (strcmp(out, root) == 0) return (int) root_len;   /* the root itself: "" below it */
    if (strncmp(parent, root, root_len) != 0 || (parent[root_len] != '\0' && parent[root_len] != '/')) return -1;
    return (int) root_len + 1;
}

static void parent_of(const char *path, struct stat *st) {
    char parent[PATH_MAX];
    strcpy(parent, path);
    *strrchr(parent, '/') = '\0';
    if (stat(parent, st) != 0) die("cannot stat a parent directory");
}

/* ------------------------------------------------------------------ journals */

static inode_t *lookup(dev_t dev, ino_t ino, int create) {
    size_t bucket = (size_t) ((ino * 31 + dev) % BUCKETS);
    for (inode_t *i = table[bucket]; i != NULL; i = i->next) {
        if (i->dev == dev && i->ino == ino) return i;
    }
    if (!create) return NULL;
    inode_t *i = calloc(1, sizeof *i);
    if (i == NULL) die("out of memory");
    i->dev = dev;
    i->ino = ino;
    i->journal = -1;
    i->next = table[bucket];
    table[bucket] = i;
    return i;
}

/* The tracked inode fd refers to, or NULL; fills st. */
static inode_t *tracked(int fd, struct stat *st) {
    if (!enabled || fd < 0 || fstat(fd, st) != 0 || st->st_dev != root_dev) return NULL;
    return lookup(st->st_dev, st->st_ino, 0);
}

static void reset_journal(inode_t *i, uint64_t synced) {
    static const char magic[8] = {'C', 'F', 'S', 'D', 'A', 'T', 'A', '1'};
    char header[JOURNAL_HEADER];
    memcpy(header, magic, 8);
    memcpy(header + 8, &synced, 8);
    if (get_ftruncate64()(i->journal, 0) != 0) die("cannot reset a journal");
    write_all(i->journal, header, JOURNAL_HEADER, 0);
    i->synced = synced;
    i->end = JOURNAL_HEADER;
}

/*
 * Opens the inode's journal, creating it if needed: a new file is synced at size 0, a file the
 * journals do not know yet (it predates tracking or the last cut) at its current size.
 */
static void load(inode_t *i, const struct stat *st, int created) {
    if (i->loaded && !created) return;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/data/%lu-%lu", state, (unsigned long) i->dev, (unsigned long) i->ino);
    if (i->journal < 0) {
        i->journal = sys_open(path, O_RDWR | O_CREAT, 0644);
        if (i->journal < 0) die("cannot open a journal");
    }
    struct stat js;
    if (fstat(i->journal, &js) != 0) die("cannot stat a journal");
    if (created || js.st_size < JOURNAL_HEADER) {
        reset_journal(i, created ? 0 : (uint64_t) st->st_size);
    } else {
        if (pread(i->journal, &i->synced, 8, 8) != 8) die("cannot read a journal");
        i->end = (uint64_t) js.st_size;
    }
    i->loaded = 1;
}

/* Saves the bytes of [offset, offset + length) that the last fsync covered and that still exist. */
static void save(inode_t *i, int fd, const struct stat *st, uint64_t offset, uint64_t length) {
    load(i, st, 0);
    uint64_t end = offset + length;
    if (end > i->synced) end = i->synced;
    if (end > (uint64_t) st->st_size) end = (uint64_t) st->st_size;
    if (offset >= end) return;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int in = sys_open(link, O_RDONLY, 0);
    if (in < 0) die("cannot reopen a file to save its bytes");
    uint64_t header[2] = {offset, end - offset};
    write_all(i->journal, header, sizeof header, i->end);
    uint64_t at = i->end + sizeof header;
    char buffer[65536];
    for (uint64_t position = offset; position < end;) {
        size_t chunk = end - position < sizeof buffer ? (size_t) (end - position) : sizeof buffer;
        ssize_t n = pread(in, buffer, chunk, (off_t) position);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("cannot read bytes to save");
        write_all(i->journal, buffer, (size_t) n, at);
        at += (uint64_t) n;
        position += (uint64_t) n;
    }
    close(in);
    i->end = at;
    trace("crashfs: saved %lu bytes at %lu of inode %lu", (unsigned long) (end - offset), (unsigned long) offset,
          (unsigned long) i->ino);
}

/* The file is durable as it is now: nothing to restore, synced up to its current size. */
static void synced(inode_t *i, int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) die("cannot stat a synced file");
    if (i->journal < 0) load(i, &st, 0);
    reset_journal(i, (uint64_t) st.st_size);
}

static void put_u64(char **p, uint64_t value) {
    memcpy(*p, &value, 8);
    *p += 8;
}

static void put_string(char **p, const char *s) {
    uint32_t length = (uint32_t) strlen(s);
    memcpy(*p, &length, 4);
    memcpy(*p + 4, s, length);
    *p += 4 + length;
}

/*
 * Appends one directory record; dir is the directory whose entries changed (or was fsynced), and a
 * rename also names the destination directory and the inode it moves.
 */
static void record(char type, const struct stat *dir, const struct stat *dst_dir, const struct stat *moved,
                   const char *a, const char *b, const char *c) {
    char buffer[PATH_MAX * 3 + 64];
    char *p = buffer;
    *p++ = type;
    put_u64(&p, (uint64_t) dir->st_dev);
    put_u64(&p, (uint64_t) dir->st_ino);
    if (dst_dir != NULL) {
        put_u64(&p, (uint64_t) dst_dir->st_dev);
        put_u64(&p, (uint64_t) dst_dir->st_ino);
        put_u64(&p, (uint64_t) moved->st_ino);
    }
    if (a != NULL) put_string(&p, a);
    if (b != NULL) put_string(&p, b);
    if (c != NULL) put_string(&p, c);
    size_t length = (size_t) (p - buffer);
    if (get_write()(dirops, buffer, length) != (ssize_t) length) die("cannot write the directory journal");
    trace("crashfs: record %c %s %s", type, a == NULL ? "" : a, b == NULL ? "" : b);
}

static void next_trash(char *name) {
    snprintf(name, 64, "%d-%lu", (int) getpid(), ++trash_seq);
}

/* ------------------------------------------------------------------ opening */

static int opened(int fd, const char *path, int flags, int created) {
    int saved = errno;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        inode_t *i = lookup(st.st_dev, st.st_ino, 1);
        if (created && S_ISREG(st.st_mode)) load(i, &st, 1);
        if (flags & (O_SYNC | O_DSYNC)) i->sync_writes = 1;
        trace("crashfs: open %s -> %d%s", path, fd, created ? " (created)" : "");
    }
    errno = saved;
    return fd;
}

/* Journals what opening (dirfd, path) with flags is about to change; returns whether it creates the file. */
static int before_open(const char *path, int flags) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (!(flags & O_CREAT)) return 0;
        struct stat dir;
        parent_of(path, &dir);
        record('C', &dir, NULL, NULL, path + root_len + 1, NULL, NULL);
        return 1;
    }
    if ((flags & O_TRUNC) && S_ISREG(st.st_mode) && (flags & O_ACCMODE) != O_RDONLY && st.st_size > 0) {
        inode_t *i = lookup(st.st_dev, st.st_ino, 1);
        int fd = sys_open(path, O_RDONLY, 0);
        if (fd < 0) die("cannot open a file to save it before truncation");
        save(i, fd, &st, 0, (uint64_t) st.st_size);
        close(fd);
    }
    return 0;
}

static int open_common(int dirfd, const char *path, int flags, mode_t mode, int at, int large) {
    char full[PATH_MAX];
    int off = resolve(dirfd, path, full);
    if (off < 0) {
        if (at) return (large ? get_openat64() : get_openat())(dirfd, path, flags, mode);
        return (large ? get_open64() : get_open())(path, flags, mode);
    }
    pthread_mutex_lock(&mutex);
    int created = off > (int) root_len && before_open(full, flags);
    int fd = at ? (large ? get_openat64() : get_openat())(dirfd, path, flags, mode)
                : (large ? get_open64() : get_open())(path, flags, mode);
    opened(fd, full, flags, created);
    pthread_mutex_unlock(&mutex);
    return fd;
}

static mode_t mode_of(int flags, va_list args) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t) va_arg(args, int) : 0;
}

/* The body of an open wrapper with a variadic mode. */
#define OPEN_WITH_MODE(dirfd, at, large) \
    { va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args); \
      return open_common(dirfd, path, flags, mode, at, large); }

int open(const char *path, int flags, ...) OPEN_WITH_MODE(AT_FDCWD, 0, 0)
int open64(const char *path, int flags, ...) OPEN_WITH_MODE(AT_FDCWD, 0, 1)
int openat(int dirfd, const char *path, int flags, ...) OPEN_WITH_MODE(dirfd, 1, 0)
int openat64(int dirfd, const char *path, int flags, ...) OPEN_WITH_MODE(dirfd, 1, 1)

/* The fortified variants take no mode: they never create. */
int __open_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0, 0, 0); }
int __open64_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0, 0, 1); }
int __openat_2(int dirfd, const char *path, int flags) { return open_common(dirfd, path, flags, 0, 1, 0); }
int __openat64_2(int dirfd, const char *path, int flags) { return open_common(dirfd, path, flags, 0, 1, 1); }

int creat(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 0, 0);
}

int creat64(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 0, 1);
}

/* ------------------------------------------------------------------ writing */

/* Locks and journals a write of length bytes at offset (-1: the fd's position) to fd; returns the inode or NULL. */
static inode_t *before_write(int fd, int64_t offset, uint64_t length) {
    struct stat st;
    if (!enabled || fstat(fd, &st) != 0 || st.st_dev != root_dev || !S_ISREG(st.st_mode)) return NULL;
    pthread_mutex_lock(&mutex);
    inode_t *i = lookup(st.st_dev, st.st_ino, 0);
    if (i == NULL) {
        pthread_mutex_unlock(&mutex);
        return NULL;
    }
    if (offset < 0) {
        int flags = fcntl(fd, F_GETFL);
        offset = flags >= 0 && (flags & O_APPEND) ? (int64_t) st.st_size : (int64_t) lseek(fd, 0, SEEK_CUR);
    }
    if (offset >= 0) save(i, fd, &st, (uint64_t) offset, length);
    return i;
}

static void after_write(inode_t *i, int fd, ssize_t written) {
    if (i == NULL) return;
    int saved = errno;
    if (written > 0 && i->sync_writes) synced(i, fd);
    pthread_mutex_unlock(&mutex);
    errno = saved;
}

static uint64_t total(const struct iovec *iov, int count) {
    uint64_t sum = 0;
    for (int k = 0; k < count; k++) sum += iov[k].iov_len;
    return sum;
}

/* The body of a write wrapper: journal [offset, offset + length) of fd (offset -1: its position), then call. */
#define JOURNALLED(fd, offset, length, call) \
    { inode_t *i = before_write(fd, offset, length); ssize_t n = call; after_write(i, fd, n); return n; }

ssize_t write(int fd, const void *b, size_t l) JOURNALLED(fd, -1, l, get_write()(fd, b, l))
ssize_t pwrite(int fd, const void *b, size_t l, off_t o) JOURNALLED(fd, o, l, get_pwrite()(fd, b, l, o))
ssize_t pwrite64(int fd, const void *b, size_t l, off64_t o) JOURNALLED(fd, o, l, get_pwrite64()(fd, b, l, o))
ssize_t writev(int fd, const struct iovec *v, int c) JOURNALLED(fd, -1, total(v, c), get_writev()(fd, v, c))
ssize_t pwritev(int fd, const struct iovec *v, int c, off_t o)
    JOURNALLED(fd, o, total(v, c), get_pwritev()(fd, v, c, o))
ssize_t pwritev64(int fd, const struct iovec *v, int c, off64_t o)
    JOURNALLED(fd, o, total(v, c), get_pwritev64()(fd, v, c, o))
ssize_t sendfile(int out, int in, off_t *o, size_t c) JOURNALLED(out, -1, c, get_sendfile()(out, in, o, c))
ssize_t sendfile64(int out, int in, off64_t *o, size_t c) JOURNALLED(out, -1, c, get_sendfile64()(out, in, o, c))

static int truncate_common(int fd, int64_t length, int large) {
    struct stat st;
    inode_t *i = NULL;
    if (enabled && fstat(fd, &st) == 0 && st.st_dev == root_dev && S_ISREG(st.st_mode)) {
        pthread_mutex_lock(&mutex);
        i = lookup(st.st_dev, st.st_ino, 0);
        if (i == NULL) {
            pthread_mutex_unlock(&mutex);
        } else if (length >= 0 && (uint64_t) length < (uint64_t) st.st_size) {
            save(i, fd, &st, (uint64_t) length, (uint64_t) st.st_size - (uint64_t) length);
        }
    }
    int r = large ? get_ftruncate64()(fd, (off64_t) length) : get_ftruncate()(fd, (off_t) length);
    after_write(i, fd, r == 0 ? 1 : -1);
    return r;
}

int ftruncate(int fd, off_t length) { return truncate_common(fd, length, 0); }
int ftruncate64(int fd, off64_t length) { return truncate_common(fd, length, 1); }

static int truncate_path(const char *path, int64_t length, int large) {
    char full[PATH_MAX];
    if (resolve(AT_FDCWD, path, full) != (int) root_len + 1) {
        return large ? get_truncate64()(path, (off64_t) length) : get_truncate()(path, (off_t) length);
    }
    int fd = sys_open(full, O_WRONLY, 0);
    if (fd < 0) return -1;
    pthread_mutex_lock(&mutex);
    opened(fd, full, 0, 0);
    pthread_mutex_unlock(&mutex);
    int r = truncate_common(fd, length, large);
    int saved = errno;
    close(fd);
    errno = saved;
    return r;
}

int truncate(const char *path, off_t length) { return truncate_path(path, length, 0); }
int truncate64(const char *path, off64_t length) { return truncate_path(path, length, 1); }

/* ------------------------------------------------------------------ syncing */

static int sync_common(int fd, int data_only) {
    struct stat st;
    if (!enabled || fstat(fd, &st) != 0 || st.st_dev != root_dev) {
        return data_only ? get_fdatasync()(fd) : get_fsync()(fd);
    }
    pthread_mutex_lock(&mutex);
    inode_t *i = lookup(st.st_dev, st.st_ino, 0);
    int r = data_only ? get_fdatasync()(fd) : get_fsync()(fd);
    int saved = errno;
    if (r == 0 && i != NULL) {
        if (S_ISDIR(st.st_mode)) {
            record('S', &st, NULL, NULL, NULL, NULL, NULL);
        } else if (S_ISREG(st.st_mode)) {
            synced(i, fd);
            trace("crashfs: synced inode %lu at %lu bytes", (unsigned long) st.st_ino, (unsigned long) i->synced);
        }
    }
    pthread_mutex_unlock(&mutex);
    errno = saved;
    return r;
}

int fsync(int fd) { return sync_common(fd, 0); }
int fdatasync(int fd) { return sync_common(fd, 1); }

void sync(void) {
    if (enabled) taint("sync", "every file's durability at once");
    get_sync()();
}

int syncfs(int fd) {
    if (enabled) taint("syncfs", "every file's durability at once");
    return get_syncfs()(fd);
}

static void check_mapping(int protection, int flags, int fd) {
    struct stat st;
    if (!enabled || fd < 0 || !(protection & PROT_WRITE) || !(flags & MAP_SHARED)) return;
    pthread_mutex_lock(&mutex);
    if (tracked(fd, &st) != NULL) taint("mmap", "a writable shared mapping of a file under the root");
    pthread_mutex_unlock(&mutex);
}

void *mmap(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    check_mapping(protection, flags, fd);
    return get_mmap()(address, length, protection, flags, fd, offset);
}

void *mmap64(void *address, size_t length, int protection, int flags, int fd, off64_t offset) {
    check_mapping(protection, flags, fd);
    return get_mmap64()(address, length, protection, flags, fd, offset);
}

/* ------------------------------------------------------------------ directory entries */

/* Removes (dirfd, path) under the root, journalled (a file goes to the trash); -2: not ours, do the real call. */
static int remove_entry(int dirfd, const char *path, int as_directory) {
    char full[PATH_MAX];
    if (resolve(dirfd, path, full) != (int) root_len + 1) return -2;
    pthread_mutex_lock(&mutex);
    struct stat st, dir;
    int r;
    if (lstat(full, &st) != 0 || (S_ISDIR(st.st_mode) && !as_directory)) {
        r = -2;   /* let the real call report why */
    } else if (S_ISDIR(st.st_mode)) {
        parent_of(full, &dir);
        record('D', &dir, NULL, NULL, full + root_len + 1, NULL, NULL);
        r = get_rmdir()(full);
    } else {
        char name[64], trash[PATH_MAX + 80];
        next_trash(name);
        snprintf(trash, sizeof trash, "%s/trash/%s", state, name);
        parent_of(full, &dir);
        record('U', &dir, NULL, NULL, full + root_len + 1, name, NULL);
        r = get_rename()(full, trash);
    }
    int saved = errno;
    pthread_mutex_unlock(&mutex);
    errno = saved;
    return r;
}

int unlink(const char *path) {
    int r = remove_entry(AT_FDCWD, path, 0);
    return r == -2 ? get_unlink()(path) : r;
}

int unlinkat(int dirfd, const char *path, int flags) {
    int r = remove_entry(dirfd, path, (flags & AT_REMOVEDIR) != 0);
    return r == -2 ? get_unlinkat()(dirfd, path, flags) : r;
}

int rmdir(const char *path) {
    int r = remove_entry(AT_FDCWD, path, 1);
    return r == -2 ? get_rmdir()(path) : r;
}

int remove(const char *path) {
    int r = remove_entry(AT_FDCWD, path, 1);
    return r == -2 ? get_remove()(path) : r;
}

static int make_entry(int dirfd, const char *path, char type) {
    char full[PATH_MAX];
    if (resolve(dirfd, path, full) != (int) root_len + 1) return 0;
    struct stat st, dir;
    pthread_mutex_lock(&mutex);
    if (lstat(full, &st) != 0) {
        parent_of(full, &dir);
        record(type, &dir, NULL, NULL, full + root_len + 1, NULL, NULL);
    }
    return 1;   /* locked */
}

static int made(int locked, int r) {
    if (locked) {
        int saved = errno;
        pthread_mutex_unlock(&mutex);
        errno = saved;
    }
    return r;
}

int mkdir(const char *path, mode_t mode) {
    int locked = make_entry(AT_FDCWD, path, 'M');
    return made(locked, get_mkdir()(path, mode));
}

int mkdirat(int dirfd, const char *path, mode_t mode) {
    int locked = make_entry(dirfd, path, 'M');
    return made(locked, get_mkdirat()(dirfd, path, mode));
}

int link(const char *target, const char *path) {
    int locked = make_entry(AT_FDCWD, path, 'C');
    return made(locked, get_link()(target, path));
}

int linkat(int olddirfd, const char *target, int newdirfd, const char *path, int flags) {
    int locked = make_entry(newdirfd, path, 'C');
    return made(locked, get_linkat()(olddirfd, target, newdirfd, path, flags));
}

int symlink(const char *target, const char *path) {
    int locked = make_entry(AT_FDCWD, path, 'C');
    return made(locked, get_symlink()(target, path));
}

int symlinkat(const char *target, int dirfd, const char *path) {
    int locked = make_entry(dirfd, path, 'C');
    return made(locked, get_symlinkat()(target, dirfd, path));
}

/*
 * Journals a rename of (sdirfd, src) to (ddirfd, dst), keeping a link to a file it replaces in the
 * trash; returns 1 if the caller must do the rename under the lock, and then call renamed().
 */
static int before_rename(int sdirfd, const char *src, int ddirfd, const char *dst, unsigned int flags,
                         char *trash_name) {
    char from[PATH_MAX], to[PATH_MAX];
    int s = resolve(sdirfd, src, from);
    int d = resolve(ddirfd, dst, to);
    if (s < 0 && d < 0) return 0;
    pthread_mutex_lock(&mutex);
    struct stat st, replaced, sdir, ddir;
    int inside = s == (int) root_len + 1 && d == (int) root_len + 1;
    if (!inside || lstat(from, &st) != 0 || S_ISDIR(st.st_mode) || flags != 0) {
        /* across the root's edge, a directory, exchange/noreplace, or a missing source (the call fails) */
        if (!inside || flags != 0 || lstat(from, &st) == 0) taint("rename", s < 0 ? to : from);
        return 1;
    }
    trash_name[0] = '\0';
    if (lstat(to, &replaced) == 0 && !S_ISDIR(replaced.st_mode)) {
        char trash[PATH_MAX + 80];
        next_trash(trash_name);
        snprintf(trash, sizeof trash, "%s/trash/%s", state, trash_name);
        if (get_link()(to, trash) != 0) die("cannot keep a replaced file");
    }
    parent_of(from, &sdir);
    parent_of(to, &ddir);
    record('R', &sdir, &ddir, &st, from + root_len + 1, to + root_len + 1, trash_name);
    return 1;
}

static int renamed(int locked, int r, const char *trash_name) {
    if (!locked) return r;
    int saved = errno;
    if (r != 0 && trash_name[0] != '\0') {
        char trash[PATH_MAX + 80];
        snprintf(trash, sizeof trash, "%s/trash/%s", state, trash_name);
        get_unlink()(trash);
    }
    pthread_mutex_unlock(&mutex);
    errno = saved;
    return r;
}

int rename(const char *src, const char *dst) {
    char trash[64] = "";
    int locked = before_rename(AT_FDCWD, src, AT_FDCWD, dst, 0, trash);
    return renamed(locked, get_rename()(src, dst), trash);
}

int renameat(int sdirfd, const char *src, int ddirfd, const char *dst) {
    char trash[64] = "";
    int locked = before_rename(sdirfd, src, ddirfd, dst, 0, trash);
    return renamed(locked, get_renameat()(sdirfd, src, ddirfd, dst), trash);
}

int renameat2(int sdirfd, const char *src, int ddirfd, const char *dst, unsigned int flags) {
    char trash[64] = "";
    int locked = before_rename(sdirfd, src, ddirfd, dst, flags, trash);
    return renamed(locked, get_renameat2()(sdirfd, src, ddirfd, dst, flags), trash);
}
