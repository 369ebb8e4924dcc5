package io.neptune.core.internal.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading files again when they change, on a fake clock: when it looks, what it keeps, what it tells once. */
class ReloadingFilesTest {
    private static final long SECOND = ReloadingFiles.CHECK_INTERVAL_NANOS;

    @TempDir
    Path directory;

    private final AtomicLong nanos = new AtomicLong();
    private final RecordingReloadListener listener = new RecordingReloadListener();

    /** Reads a file's text; a file without "ok" in it does not load, as a half-written certificate. */
    private ReloadingFiles<String> watch(Path file) {
        return ReloadingFiles.read(Map.of("token-file", file), () -> {
            String text = text(file);
            if (!text.startsWith("ok")) {
                throw new ConfigException("token-file", "'" + text + "' (expected: ok...)");
            }
            return text;
        }, listener, nanos::get);
    }

    @Test
    void aChangeIsReadAtTheFirstLookASecondAfterTheLast() throws Exception {
        Path file = write("token", "ok-1");
        ReloadingFiles<String> files = watch(file);

        replace(file, "ok-2");
        nanos.addAndGet(SECOND - 1);
        assertThat(files.current()).as("before the second is up").isEqualTo("ok-1");
        nanos.addAndGet(1);
        assertThat(files.current()).isEqualTo("ok-2");
        assertThat(listener.events).containsExactly("reloaded ok-2");
    }

    @Test
    void filesThatDoNotLoadKeepTheValueAreToldOnceAndAreReadAgainUntilTheyLoad() throws Exception {
        Path file = write("token", "ok-1");
        ReloadingFiles<String> files = watch(file);

        replace(file, "half");
        for (int look = 0; look < 5; look++) {
            nanos.addAndGet(SECOND);
            assertThat(files.current()).isEqualTo("ok-1");
        }
        assertThat(listener.events).as("told once").containsExactly("kept token-file: 'half' (expected: ok...)");

        replace(file, "ok-2");
        nanos.addAndGet(SECOND);
        assertThat(files.current()).isEqualTo("ok-2");
        assertThat(listener.events).hasSize(2).last().isEqualTo("reloaded ok-2");
    }

    @Test
    void aFileThatGoesMissingKeepsTheValueAndIsToldOnce() throws Exception {
        Path file = write("token", "ok-1");
        ReloadingFiles<String> files = watch(file);

        Files.delete(file);
        for (int look = 0; look < 3; look++) {
            nanos.addAndGet(SECOND);
            assertThat(files.current()).isEqualTo("ok-1");
        }
        assertThat(listener.events).hasSize(1).first().asString().startsWith("kept token-file: '" + file
                + "' cannot be read (NoSuchFileException");

        write("token", "ok-2");
        nanos.addAndGet(SECOND);
        assertThat(files.current()).isEqualTo("ok-2");
    }

    @Test
    void aFileRenamedOverAnotherOfTheSameTimeAndSizeIsANewFile() throws Exception {
        Path file = write("token", "ok-1");
        FileTime time = Files.getLastModifiedTime(file);
        ReloadingFiles<String> files = watch(file);

        Path staged = write("staged", "ok-2");
        Files.setLastModifiedTime(staged, time);
        Files.move(staged, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        nanos.addAndGet(SECOND);

        assertThat(files.current()).isEqualTo("ok-2");
    }

    @Test
    void filesThatDoNotLoadAtFirstAreRefused() throws Exception {
        Path file = write("token", "half");

        assertThatThrownBy(() -> watch(file)).isInstanceOf(ConfigException.class)
                .hasMessage("token-file: 'half' (expected: ok...)");
        assertThatThrownBy(() -> watch(directory.resolve("missing"))).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("token-file: '" + directory.resolve("missing") + "' cannot be read");
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(directory.resolve(name), text, StandardCharsets.UTF_8);
    }

    /** A new file renamed over {@code file}, as an operator replaces one. */
    private void replace(Path file, String text) throws IOException {
        Path staged = write(file.getFileName() + ".tmp", text);
        Files.move(staged, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String text(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("token-file", "'" + file + "' cannot be read (" + e + ")");
        }
    }

    /** Records what it is told, in order. */
    private static final class RecordingReloadListener implements ReloadingFiles.ReloadListener<String> {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void reloaded(String value) {
            events.add("reloaded " + value);
        }

        @Override
        public void kept(ConfigException problem) {
            events.add("kept " + problem.getMessage());
        }
    }
}
