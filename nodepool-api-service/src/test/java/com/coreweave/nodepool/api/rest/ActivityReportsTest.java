package com.coreweave.nodepool.api.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topics;
import io.fabric8.kubernetes.api.model.Status;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ActivityReportsTest {

    private static final PoolKey KEY = new PoolKey("acme", "train");
    private static final Instant NOW = Instant.parse("2025-06-09T14:48:54.789Z");

    @Test
    void aReportIsTheRecordThePathAndBodyMakeAsTheTopicReadsIt() {
        NodeActivityReported read = ActivityReports.read(
                KEY,
                "n-1",
                "{\"active\": true, \"terminationGracePeriodSeconds\": 60, \"disruptionsAllowed\": 0}",
                NOW);

        assertThat(read).isEqualTo(new NodeActivityReported("acme", "train", "n-1", true, 60, NOW, 0));
    }

    @Test
    void aReportTheTopicRefusesIsRefusedOverRestWithTheTopicsReason() {
        var onTopic = new NodeActivityReported("acme", "train", "n-1", true, -5, NOW);
        Throwable topic = catchThrowable(() -> Topics.NODE_ACTIVITY_REPORTED.read(KEY.toString(), Json.bytes(onTopic)));
        Throwable rest = catchThrowable(() ->
                ActivityReports.read(KEY, "n-1", "{\"active\": true, \"terminationGracePeriodSeconds\": -5}", NOW));

        assertThat(topic).isInstanceOf(Rejection.class);
        assertThat(rest).isInstanceOf(ApiException.class);
        Status status = ((ApiException) rest).status();
        assertThat(status.getCode()).isEqualTo(422);
        assertThat(status.getDetails().getKind()).isEqualTo(ActivityReports.KIND);
        assertThat(status.getDetails().getCauses())
                .singleElement()
                .satisfies(c -> assertThat(c.getMessage()).isEqualTo(((Rejection) topic).reason()));
    }

    @Test
    void aReportWithoutActiveOrWithABadBudgetIsRefusedLikeOnTheTopic() {
        for (String body :
                new String[] {"{}", "{\"active\": \"yes\"}", "{\"active\": false, \"disruptionsAllowed\": -1}", "[]"}) {
            Throwable rest = catchThrowable(() -> ActivityReports.read(KEY, "n-1", body, NOW));
            assertThat(rest).as(body).isInstanceOf(ApiException.class);
            assertThat(((ApiException) rest).status().getCode()).as(body).isEqualTo(422);
        }
    }

    @Test
    void noBodyIsA400() {
        Throwable rest = catchThrowable(() -> ActivityReports.read(KEY, "n-1", "", NOW));

        assertThat(((ApiException) rest).status().getCode()).isEqualTo(400);
    }
}
