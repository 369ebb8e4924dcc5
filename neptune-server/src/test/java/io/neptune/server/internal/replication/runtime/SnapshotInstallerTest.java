package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.server.internal.replication.runtime.PeerMessages.Chunk;
import io.neptune.server.internal.replication.runtime.PeerMessages.SnapshotOffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The receiver's check of each snapshot chunk: a chunk that is not exactly the piece asked for is refused. */
class SnapshotInstallerTest {
    private static final SnapshotOffer OFFER = new SnapshotOffer(true, "", "10-abc", 10, 2, "node-1", 10_000, "sha",
            4096, 0);

    private static Chunk chunk(long offset, byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return new Chunk(true, "", offset, data, (int) crc.getValue());
    }

    @Test
    void anIntactChunkPasses() {
        assertThat(SnapshotInstaller.check(OFFER, 4096, chunk(4096, new byte[4096]))).isEmpty();
        assertThat(SnapshotInstaller.check(OFFER, 8192, chunk(8192, new byte[10_000 - 8192]))).isEmpty();
    }

    @Test
    void aCorruptChunkIsRefusedByItsCrc() {
        Chunk good = chunk(0, new byte[4096]);
        byte[] flipped = good.data().clone();
        flipped[100] ^= 0x10;
        Chunk corrupt = new Chunk(true, "", 0, flipped, good.crc32c());
        assertThat(SnapshotInstaller.check(OFFER, 0, corrupt)).startsWith("crc32c: ")
                .contains("expected: " + Integer.toHexString(good.crc32c()));
    }

    @Test
    void aChunkOfTheWrongPlaceOrSizeIsRefused() {
        assertThat(SnapshotInstaller.check(OFFER, 0, chunk(4096, new byte[4096])))
                .isEqualTo("chunk at 4096 of 4096 bytes (expected: at 0, 4096 bytes)");
        assertThat(SnapshotInstaller.check(OFFER, 0, chunk(0, new byte[100])))
                .isEqualTo("chunk at 0 of 100 bytes (expected: at 0, 4096 bytes)");
        assertThat(SnapshotInstaller.check(OFFER, 0, new Chunk(false, "snapshot 10-abc is gone (current: none)", 0,
                new byte[0], 0))).isEqualTo("snapshot 10-abc is gone (current: none)");
    }
}
