// Types of the uPlot ES module the service serves at /dashboard/vendor/uPlot.esm.js.
import uPlot from 'uplot'
export default uPlot
