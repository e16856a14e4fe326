package dev.zluda.runtime.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The three benchmark kernels ({@link EmulatorWorkloads}: aluBound, saxpy, blockReduce) compute what
 * their Java models say, at small sizes, on 1 and 2 host threads, with ragged shapes (a partial warp,
 * a grid that does not divide the work); and each reports the thread-instructions its PTX implies.
 */
class BenchmarkKernelsTest {
    /** Builds a workload. */
    private interface WorkloadOf {
        EmulatorWorkloads.Workload of(EmulatorWorkloads w) throws Exception;
    }

    /**
     * Launches the workload {@code make} builds on 1 and 2 host threads, checks its output against its model after
     * each launch, and returns the thread-instructions of each launch.
     */
    private static long[] launchOnOneAndTwoThreads(WorkloadOf make) throws Exception {
        try (EmulatorWorkloads w = new EmulatorWorkloads()) {
            EmulatorWorkloads.Workload k = make.of(w);
            int[] threads = {1, 2};
            long[] instructions = new long[threads.length];
            for (int i = 0; i < threads.length; i++) {
                instructions[i] = k.launch(new Emulator(threads[i])).threadInstructions();
                k.check().run();
            }
            return instructions;
        }
    }

    @Test
    void aluBoundMatchesModel() throws Exception {
        // per thread: 14 before the loop, 11 a round, 9 after (PTX text); 3 CTAs of 40 threads
        for (long n : launchOnOneAndTwoThreads(w -> w.alu(3, 40, 37))) assertEquals(3L * 40 * (14 + 11 * 37 + 9), n);
    }

    @Test
    void saxpyMatchesModel() throws Exception {
        // per thread 16 instructions before the loop and the ret (every thread has an element), 11 an element
        for (long n : launchOnOneAndTwoThreads(w -> w.saxpy(5, 64, 10_007))) assertEquals(5L * 64 * (16 + 1) + 11L * 10_007, n);
    }

    @Test
    void blockReduceMatchesModel() throws Exception {
        launchOnOneAndTwoThreads(w -> w.blockReduce(3, 10));
    }
}
