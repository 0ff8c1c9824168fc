// The dropped files: which one is the model, and which are its external data (by name).
export function sortFiles(files) {
  const models = files.filter((f) => /\.onnx$/i.test(f.name));
  if (models.length === 0) throw Object.assign(new Error('None of the files is an .onnx model. Add the model file.'), { code: 'NO_MODEL' });
  if (models.length > 1) {
    throw Object.assign(new Error(`Drop one model at a time (got ${models.map((f) => f.name).join(', ')}).`), { code: 'MANY_MODELS' });
  }
  const external = {};
  for (const f of files) if (f !== models[0]) external[f.name] = f;
  return { model: models[0], external };
}
