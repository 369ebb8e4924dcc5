package io.neptune.examples.blast;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Partitions;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A nucleotide database split into partitions for the {@code blast} service: each partition is a
 * BLAST database of its own, {@code part-<p>} in one directory, built by NCBI's {@code makeblastdb}
 * from the {@link SyntheticSequences} whose id hashes to it ({@link Partitions#of(Object, int)}).
 * {@link #processConfig()} is the service that runs the unmodified {@code blastn} over a partition:
 * the query on its stdin, tabular hits on its stdout.
 *
 * <p>Building is skipped when the directory already holds the same set (a {@value #MANIFEST}
 * records what was built), so a restarted demo starts at once. Every node that hosts a partition
 * needs the directory at the same path; on one machine they share it.
 *
 * <p>Thread-safety: immutable; {@link #build} must not run twice at once on one directory.
 *
 * @param directory where the partitions' files are
 * @param partitions how many partitions
 * @param sequences how many sequences in all
 * @param letters how many bases in all: the {@code -dbsize} every partition computes e-values with
 */
public record BlastDatabase(Path directory, int partitions, int sequences, long letters) {
    /** The service's name. */
    public static final String SERVICE = "blast";
    /** The demo's partition count. */
    public static final int DEFAULT_PARTITIONS = 4;
    /** The most hits one partition answers ({@code -max_target_seqs}). */
    public static final int MAX_TARGETS = 50;
    /** How long one {@code blastn} run may take. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** How many {@code blastn} processes may run at once per node: the machine has few cores. */
    public static final int MAX_PROCESSES = 2;
    /** The file recording what the directory holds. */
    public static final String MANIFEST = "blast-db.properties";

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);

    /** Validates the fields. */
    public BlastDatabase {
        requireNonNull(directory, "directory");
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 1)");
        }
    }

    /**
     * The version of the {@code blastn} on the {@code PATH}, such as {@code 2.12.0+};
     * empty if there is none (Debian's package is {@code ncbi-blast+}) or it does not run.
     */
    public static Optional<String> blastnVersion() {
        try {
            Process process = new ProcessBuilder("blastn", "-version").redirectErrorStream(true).start();
            String output;
            try (InputStream out = process.getInputStream()) {
                output = new String(out.readNBytes(4096), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.empty();
            }
            return process.exitValue() == 0 ? output.lines().findFirst()
                    .map(line -> line.replaceFirst("^blastn:\\s*", "").strip()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * Builds {@code sequences} into {@code partitions} BLAST databases in {@code directory}, or
     * returns the one already there if it was built from the same set.
     *
     * @throws IllegalStateException naming the tool and its output if {@code makeblastdb} fails or is missing
     * @throws UncheckedIOException if the files cannot be written
     */
    public static BlastDatabase build(Path directory, SyntheticSequences sequences, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 1)");
        }
        Path manifest = directory.resolve(MANIFEST);
        String source = sequences + " in " + partitions + " partitions";
        try {
            Optional<BlastDatabase> existing = read(directory, source);
            if (existing.isPresent()) {
                return existing.get();
            }
            Files.createDirectories(directory);
            Files.deleteIfExists(manifest);
            List<List<SyntheticSequences.Sequence>> byPartition = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                byPartition.add(new ArrayList<>());
            }
            long letters = 0;
            for (SyntheticSequences.Sequence sequence : sequences.generate()) {
                byPartition.get(Partitions.of(sequence.id(), partitions)).add(sequence);
                letters += sequence.bases().length();
            }
            for (int p = 0; p < partitions; p++) {
                Path fasta = directory.resolve("part-" + p + ".fa");
                try (Writer out = Files.newBufferedWriter(fasta)) {
                    for (SyntheticSequences.Sequence sequence : byPartition.get(p)) {
                        out.write('>' + sequence.id() + '\n');
                        for (int i = 0; i < sequence.bases().length(); i += 80) {
                            out.write(sequence.bases(), i, Math.min(80, sequence.bases().length() - i));
                            out.write('\n');
                        }
                    }
                }
                run(directory, List.of("makeblastdb", "-in", fasta.getFileName().toString(), "-dbtype", "nucl",
                        "-out", "part-" + p, "-title", SERVICE + " partition " + p + " of " + partitions));
                Files.delete(fasta);
            }
            Properties properties = new Properties();
            properties.setProperty("source", source);
            properties.setProperty("partitions", Integer.toString(partitions));
            properties.setProperty("sequences", Integer.toString(sequences.size()));
            properties.setProperty("letters", Long.toString(letters));
            Path written = directory.resolve(MANIFEST + ".tmp");
            try (Writer out = Files.newBufferedWriter(written)) {
                properties.store(out, "built by " + BlastDatabase.class.getName() + "; delete to rebuild");
            }
            Files.move(written, manifest, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return new BlastDatabase(directory.toAbsolutePath(), partitions, sequences.size(), letters);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the BLAST database in " + directory, e);
        }
    }

    private static Optional<BlastDatabase> read(Path directory, String source) throws IOException {
        Path manifest = directory.resolve(MANIFEST);
        if (!Files.isRegularFile(manifest)) {
            return Optional.empty();
        }
        Properties properties = new Properties();
        try (var in = Files.newBufferedReader(manifest)) {
            properties.load(in);
        }
        if (!source.equals(properties.getProperty("source"))) {
            return Optional.empty();
        }
        return Optional.of(new BlastDatabase(directory.toAbsolutePath(),
                Integer.parseInt(properties.getProperty("partitions")),
                Integer.parseInt(properties.getProperty("sequences")), Long.parseLong(properties.getProperty("letters"))));
    }

    private static void run(Path directory, List<String> command) throws IOException {
        Process process;
        try {
            process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command.get(0) + " (expected: NCBI BLAST+ on the PATH;"
                    + " on Debian: apt-get install ncbi-blast+): " + e.getMessage(), e);
        }
        try {
            byte[] output;
            try (InputStream out = process.getInputStream()) {
                output = out.readAllBytes();
            }
            if (!process.waitFor(TOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " did not finish in " + TOOL_TIMEOUT.toSeconds() + " s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed with exit code "
                        + process.exitValue() + ": " + new String(output, StandardCharsets.UTF_8).strip());
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }

    /**
     * The process-backed service that searches one partition: a {@code blastn} per request, the query
     * (FASTA) on its stdin, e-values computed against the whole database ({@code -dbsize}
     * {@link #letters()}), at most {@value #MAX_TARGETS} hits in {@link BlastHits#OUTPUT_FORMAT}.
     */
    public ProcessConfig processConfig() {
        return ProcessConfig.builder(SERVICE, List.of("blastn", "-db", directory.resolve("part-{partition}").toString(),
                        "-outfmt", BlastHits.OUTPUT_FORMAT, "-dbsize", Long.toString(letters),
                        "-max_target_seqs", Integer.toString(MAX_TARGETS), "-num_threads", "1"))
                .partitions(partitions).mode(ProcessMode.PER_REQUEST).timeout(TIMEOUT).maxProcesses(MAX_PROCESSES)
                .build();
    }
}
