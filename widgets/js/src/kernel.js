// Is a kernel behind this view?  One saved with its notebook (JupyterLab restoring the
// saved widget state, nbconvert's HTML with the widget scripts, nbviewer, Jupyter Book)
// draws from that state, but nothing answers its buttons: say so instead of letting
// Step do nothing.  A live kernel answers 'hello' as soon as it is idle.
import { el } from './dom.js';

// How long a page waits for the kernel's answer before it says that none came.
const KERNEL_WAIT_MS = 4000;

export function kernelNotice() {
  const notice = el('span', 'agl-no-kernel', 'No kernel answers this view yet: the '
    + 'kernel is busy, or the view was saved in an earlier session (run its cell again '
    + 'to step it).');
  notice.setAttribute('role', 'status');
  notice.hidden = true;
  return notice;
}

// Start waiting; the returned functions mark the answer and stop the wait.
export function awaitKernel(root, notice) {
  root.dataset.aglKernel = 'asked';
  const unanswered = setTimeout(() => {
    notice.hidden = false;
    root.dataset.aglKernel = 'silent';
  }, KERNEL_WAIT_MS);
  return {
    answered() {
      clearTimeout(unanswered);
      notice.hidden = true;
      root.dataset.aglKernel = 'live';
    },
    stop: () => clearTimeout(unanswered),
  };
}
