package dev.limiter.autoconfigure.instances;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker of {@link FaultsAcrossInstancesTests} on made-up admissions: for each shape of limit, the
 * most a limit allows passes and one admission more is found, while admissions that only jitter (whose
 * {@code [before, after]} straddles a boundary) never count against a limit.
 */
class LimitCheckTests {

    static final long SECOND = 1_000_000;

    /** An arbitrary epoch-aligned second, so that window boundaries fall on whole seconds. */
    static final long T0 = 1_800_000_000L * SECOND;

    @Test
    void fixedWindowAllowsTheLimitPerAlignedWindowAndFindsOneMore() {
        LimitCheck check = LimitCheck.fixedWindow(3, SECOND);
        assertThat(check.worst(at(T0, T0 + 10, T0 + SECOND - 1)).over()).isZero();
        assertThat(check.worst(at(T0, T0 + 10, T0 + 20, T0 + SECOND - 1)).over()).isEqualTo(1);
        // Twice the limit around a boundary is what a fixed window does.
        assertThat(check.worst(at(T0 + SECOND - 3, T0 + SECOND - 2, T0 + SECOND - 1, T0 + SECOND, T0 + SECOND + 1,
                T0 + SECOND + 2)).over()).isZero();
        // A fourth call that may have been decided in the next window is not counted.
        List<Admission> straddling = at(T0 + 10, T0 + 20, T0 + 30);
        straddling.add(new Admission("l", "k", T0 + SECOND - 5, T0 + SECOND + 5));
        assertThat(check.worst(straddling).over()).isZero();
        straddling.add(new Admission("l", "k", T0 + SECOND - 10, T0 + SECOND - 5));
        assertThat(check.worst(straddling).over()).isEqualTo(1);
    }

    @Test
    void slidingWindowAllowsTheLimitPerAlignedSpanOfSubWindowsAndFindsOneMore() {
        LimitCheck check = LimitCheck.slidingWindow(3, SECOND, 10);
        long step = SECOND / 10;
        // Sub-windows 0 and 10 are never live together: 3 + 3 is right.
        assertThat(check.worst(at(T0, T0 + 1, T0 + 2, T0 + 10 * step, T0 + 10 * step + 1, T0 + 10 * step + 2)).over()).isZero();
        // Sub-windows 0 and 9 are: one more than the limit.
        assertThat(check.worst(at(T0 + 5 * step, T0 + 5 * step + 1, T0 + 5 * step + 2, T0 + 14 * step + 7)).over()).isEqualTo(1);
        // The same, the last one straddling into sub-window 15, which no longer sees sub-window 5.
        List<Admission> straddling = at(T0 + 5 * step, T0 + 5 * step + 1, T0 + 5 * step + 2);
        straddling.add(new Admission("l", "k", T0 + 15 * step - 1, T0 + 15 * step));
        assertThat(check.worst(straddling).over()).isZero();
    }

    @Test
    void slidingLogAllowsTheLimitInEverySpanShorterThanTheWindowAndFindsOneMore() {
        LimitCheck check = LimitCheck.slidingLog(3, SECOND);
        assertThat(check.worst(at(T0, T0 + 1, T0 + 2, T0 + SECOND)).over()).isZero();
        assertThat(check.worst(at(T0, T0 + 1, T0 + 2, T0 + SECOND - 1)).over()).isEqualTo(1);
        // A steady pace of exactly the limit holds at every start, not only at aligned ones.
        List<Admission> steady = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            steady.add(Admission.at("l", "k", T0 + 123_457 + i * SECOND / 3));
        }
        assertThat(check.worst(steady).over()).isZero();
        steady.add(Admission.at("l", "k", T0 + 123_457 + 5 * SECOND / 3 + 1));
        assertThat(check.worst(steady).over()).isEqualTo(1);
        // Jitter: the fourth may have been decided a full window after the first.
        List<Admission> jittery = at(T0, T0 + 1, T0 + 2);
        jittery.add(new Admission("l", "k", T0 + SECOND - 10, T0 + SECOND));
        assertThat(check.worst(jittery).over()).isZero();
    }

    @Test
    void severalLimitsAreEachChecked() {
        // 10/1s and 30/5s: 10 in each of 4 seconds keeps the short limit and breaks the long one by 10.
        List<Admission> admissions = new ArrayList<>();
        for (int second = 0; second < 4; second++) {
            for (int i = 0; i < 10; i++) {
                admissions.add(Admission.at("sliding-log", "k", T0 + second * SECOND + i * 1_000));
            }
        }
        Map<String, List<LimitCheck>> checks = Map.of("sliding-log",
                List.of(LimitCheck.slidingLog(10, SECOND), LimitCheck.slidingLog(30, 5 * SECOND)));
        AdmissionAudit.Finding finding = AdmissionAudit.audit(checks, admissions).get(0);
        assertThat(finding.keysOver()).isEqualTo(1);
        assertThat(finding.worst().over()).isEqualTo(10);
        assertThat(finding.worst().limit()).contains("30/5000000us");
        assertThat(LimitCheck.slidingLog(10, SECOND).worst(admissions).over()).isZero();
    }

    @Test
    void bucketAllowsItsBurstAndRefillAndFindsOneMore() {
        // Burst 5, refilled at 10 per second: one permit every 100 ms.
        LimitCheck check = LimitCheck.bucket(10, SECOND, 5);
        List<Admission> exact = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            exact.add(Admission.at("l", "k", T0));
        }
        for (int i = 1; i <= 20; i++) {
            exact.add(Admission.at("l", "k", T0 + i * SECOND / 10));
        }
        assertThat(check.worst(exact).over()).isZero();
        List<Admission> early = new ArrayList<>(exact);
        early.add(Admission.at("l", "k", T0 + 15 * SECOND / 10 - 1));
        assertThat(check.worst(early).over()).isEqualTo(1);
        List<Admission> sixAtOnce = new ArrayList<>(exact.subList(0, 5));
        sixAtOnce.add(Admission.at("l", "k", T0 + SECOND / 10 - 1));
        assertThat(check.worst(sixAtOnce).over()).isEqualTo(1);
        // Jitter: the sixth may have been decided once the first refill was there.
        List<Admission> jittery = new ArrayList<>(exact.subList(0, 5));
        jittery.add(new Admission("l", "k", T0 + SECOND / 10 - 1, T0 + SECOND / 10));
        assertThat(check.worst(jittery).over()).isZero();
    }

    @Test
    void auditReportsOverPerLimiterAndKey() {
        List<Admission> admissions = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            admissions.add(Admission.at("fixed-window", "hot", T0 + i));
            admissions.add(Admission.at("gcra", "hot", T0 + i));
        }
        admissions.add(Admission.at("fixed-window", "cold", T0));
        List<AdmissionAudit.Finding> findings = AdmissionAudit.audit(
                Map.of("fixed-window", List.of(LimitCheck.fixedWindow(3, SECOND)), "gcra", List.of(LimitCheck.bucket(4, SECOND, 4))),
                admissions);
        AdmissionAudit.Finding fixed = findings.stream().filter((f) -> f.limiter().equals("fixed-window")).findFirst().orElseThrow();
        AdmissionAudit.Finding gcra = findings.stream().filter((f) -> f.limiter().equals("gcra")).findFirst().orElseThrow();
        assertThat(fixed.keys()).isEqualTo(2);
        assertThat(fixed.admitted()).isEqualTo(5);
        assertThat(fixed.over()).containsOnlyKeys("hot");
        assertThat(fixed.worstKey()).isEqualTo("hot");
        assertThat(fixed.excess()).isEqualTo(1);
        assertThat(gcra.keysOver()).isZero();
    }

    private static List<Admission> at(long... micros) {
        List<Admission> admissions = new ArrayList<>();
        for (long t : micros) {
            admissions.add(Admission.at("l", "k", t));
        }
        return admissions;
    }

}
