package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionSamplerTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void theBoundIsTheLatestVersionAtLeastOneStalenessOld() {
        VersionSampler versions = new VersionSampler(2 * SECOND);
        versions.sample(10, 0);
        versions.sample(20, SECOND);
        versions.sample(30, 2 * SECOND);

        assertThat(versions.boundVersion(2 * SECOND)).isEqualTo(10);
        assertThat(versions.boundVersion(3 * SECOND)).isEqualTo(20);
        assertThat(versions.boundVersion(SECOND)).as("nothing is that old yet").isZero();
    }

    @Test
    void withoutABoundNothingIsSampledAndTheBoundIsZero() {
        VersionSampler versions = new VersionSampler(0);
        versions.sample(10, 0);

        assertThat(versions.boundVersion(10 * SECOND)).isZero();
    }
}
