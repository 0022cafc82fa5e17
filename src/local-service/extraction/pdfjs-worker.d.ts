// pdfjs-dist ships no types for its worker module, which is imported only for its effect.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs';
