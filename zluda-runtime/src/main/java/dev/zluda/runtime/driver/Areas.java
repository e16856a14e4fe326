package dev.zluda.runtime.driver;

/**
 * The areas of the driver, each a final class with one job, made and wired once per driver: who needs whom is
 * written here and nowhere else. The dispatch table ({@code DriverTable}, generated from cuda-api-driver.yaml)
 * hands each CUDA function to the method of the same name in the area that serves it.
 */
final class Areas {
    private final DriverState state;
    final DeviceArea device;
    final ContextArea context;
    final MemoryArea memory;
    final StreamArea stream;
    final EventArea event;
    final ArrayArea array;
    final CopyArea copy;
    final ModuleArea module;
    final LibraryArea library;
    final FunctionArea function;
    final LaunchArea launch;
    final PoolArea pool;
    final HintArea hint;
    final TextureArea texture;
    final GraphArea graph;
    final GraphExecArea graphExec;
    final StreamCaptureArea streamCapture;
    final ExportTableArea exportTable;
    final VirtualMemoryArea virtualMemory;
    /** Stream capture: the areas that enqueue work ask it whether their stream captures. */
    final StreamCapture capture;

    /**
     * @param state the shared driver state
     * @param moduleLoad {@code cuModuleLoadData} as the driver serves it, for the export tables' module loads
     */
    Areas(DriverState state, ExportTableArea.ModuleLoad moduleLoad) {
        this.state = state;
        device = new DeviceArea(state);
        context = new ContextArea(state);
        memory = new MemoryArea(state);
        stream = new StreamArea(state);
        Graph.Tables graphs = new Graph.Tables();
        capture = new StreamCapture(state, stream, memory, graphs);
        stream.capture = capture;
        event = new EventArea(state, stream, capture);
        array = new ArrayArea(state, memory);
        copy = new CopyArea(state, memory, stream, array, capture);
        module = new ModuleArea(state, memory);
        library = new LibraryArea(state, module);
        function = new FunctionArea(state, module, library);
        launch = new LaunchArea(state, memory, stream, event, function, capture);
        pool = new PoolArea(state, memory, stream, capture);
        hint = new HintArea(state, stream);
        texture = new TextureArea(state, memory, array);
        GraphNodes graphNodes = new GraphNodes(state, graphs, memory, event, launch);
        graph = new GraphArea(graphNodes, memory);
        graphExec = new GraphExecArea(graphNodes, memory, stream, event, copy, launch, capture);
        streamCapture = new StreamCaptureArea(graphNodes, stream, capture);
        exportTable = new ExportTableArea(state, context, module, moduleLoad);
        virtualMemory = new VirtualMemoryArea(state, memory);
        memory.virtualMemory = virtualMemory;
        // what a destroyed or reset context frees, in this order
        context.onRelease(exportTable::release);
        context.onRelease(capture::release);
        context.onRelease(memory::release);
        context.onRelease(stream::release);
        context.onRelease(event::release);
        context.onRelease(module::release);
    }

    /** What the dispatch table gives a function no area serves: CUDA_ERROR_NOT_SUPPORTED, said once on stderr. */
    int unsupported(int functionId) {
        return state.unsupported(functionId);
    }
}
